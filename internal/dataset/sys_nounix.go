//go:build !unix

package dataset

import (
	"os"
	"path/filepath"
)

// inPlace reports whether the directory target cannot be swapped by renaming
// it: here, only the working directory and a root are detected.
func inPlace(target string) bool {
	if filepath.Dir(target) == target {
		return true
	}
	wd, err := os.Getwd()
	return err == nil && wd == target
}

func isReadOnly(error) bool { return false }

// processAlive cannot tell here: every stage counts as alive, so none is
// removed while its writer may still run.
func processAlive(int) bool { return true }
