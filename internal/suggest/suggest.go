// Package suggest finds the name a user most likely meant when the one typed
// is not there: the "did you mean" of every unknown-name message (commands,
// formats, acceptance-file keys). It is pure Go and imports nothing of the
// project, so any stage may use it.
package suggest

import "strings"

// Closest returns the candidate nearest to s in edit distance, ignoring
// letter case and taking '_' for '-', when it is at most maxEdits edits
// away and fewer than s has letters (a two-letter typo matches nothing
// useful); "" when none is. Ties go to the earlier candidate.
func Closest(s string, candidates []string, maxEdits int) string {
	norm := func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "_", "-") }
	best, bestD := "", maxEdits+1
	for _, c := range candidates {
		if d := Distance(norm(s), norm(c)); d < bestD && d < len(s) {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes: the fewest
// insertions, deletions and substitutions that turn a into b.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
