package capacity

import (
	"errors"
	"fmt"
	"math"

	"github.com/tpsreport/tpsreport/schemas"
)

// Pricing is the price the cost flags give (--replica-cost-per-hour,
// --replicas, --currency).
type Pricing struct {
	ReplicaCostPerHour float64 // in the user's currency
	Replicas           int64   // 0: the replicas the logs name, else one
	Currency           string  // a label only: no symbol or rate is assumed
}

// ErrBadPrice is returned by Validate for a price or replica count that is
// not a finite positive number.
var ErrBadPrice = errors.New("bad price")

// Validate refuses a price that is not a finite number above zero, and a
// negative replica count.
func (p Pricing) Validate() error {
	if math.IsNaN(p.ReplicaCostPerHour) || math.IsInf(p.ReplicaCostPerHour, 0) || p.ReplicaCostPerHour <= 0 {
		return fmt.Errorf("%w: --replica-cost-per-hour %v: want a positive number (the price of one replica for one hour)", ErrBadPrice, p.ReplicaCostPerHour)
	}
	if p.Replicas < 0 {
		return fmt.Errorf("%w: --replicas %d: want a positive number, or 0 for the replicas the logs name", ErrBadPrice, p.Replicas)
	}
	return nil
}

// Replica count sources of schemas.Cost.ReplicasSource.
const (
	FromFlag = "flag"
	FromLogs = "logs"
	Assumed  = "assumed"
)

// NamedReplicas is how many replicas an analysed run's spans name, as far as
// summary.json tells: its own cost's count when that came from the logs,
// else its per-replica states (listed when there are two or more, with
// those left out of the list), else 0.
func NamedReplicas(sum schemas.Summary) int64 {
	if sum.Cost != nil && sum.Cost.ReplicasSource == FromLogs {
		return sum.Cost.Replicas
	}
	return int64(len(sum.Replicas)) + sum.ReplicasOmitted
}

// Price computes a run's cost (docs/metrics.md "Cost and capacity") from its
// summary and windows at price p; named is the number of replicas the spans
// name (0 when they name none).
//
//	cost_per_hour                     = replicas × price
//	cost_per_million_tokens           = cost_per_hour / 3600 / retry_adjusted_system_tps × 10^6
//	cost_per_million_tokens_saturated = the same with delivered tokens / seconds over backlog windows
//	cost_per_completion               = cost_per_hour / 3600 / (succeeded requests / run seconds)
func Price(sum schemas.Summary, windows []schemas.Metrics, p Pricing, named int64) schemas.Cost {
	c := schemas.Cost{ReplicaCostPerHour: p.ReplicaCostPerHour, Currency: p.Currency}
	switch {
	case p.Replicas > 0:
		c.Replicas, c.ReplicasSource = p.Replicas, FromFlag
	case named > 0:
		c.Replicas, c.ReplicasSource = named, FromLogs
	default:
		c.Replicas, c.ReplicasSource = 1, Assumed
	}
	c.CostPerHour = float64(c.Replicas) * p.ReplicaCostPerHour
	perSecond := c.CostPerHour / 3600
	if tps := sum.RetryAdjustedSystemTPS; tps != nil && *tps > 0 {
		c.CostPerMillionTokens = ptr(perSecond / *tps * 1e6)
	}
	if tps, ok := SaturatedTPS(windows); ok && tps > 0 {
		c.CostPerMillionTokensSaturated = ptr(perSecond / tps * 1e6)
	}
	if sum.SucceededRequests > 0 && sum.WindowSeconds > 0 {
		c.CostPerCompletion = ptr(perSecond / (float64(sum.SucceededRequests) / sum.WindowSeconds))
	}
	return c
}

// SaturatedTPS is the delivered throughput over the backlog windows (those
// with backlog_time > 0): Σ delivered_tokens / Σ window_seconds. ok is false
// when no window had a backlog.
func SaturatedTPS(windows []schemas.Metrics) (tps float64, ok bool) {
	var tokens, secs float64
	for _, w := range windows {
		if w.BacklogTime > 0 && w.WindowSeconds > 0 {
			tokens += w.DeliveredTokens
			secs += w.WindowSeconds
		}
	}
	if secs == 0 {
		return 0, false
	}
	return tokens / secs, true
}

// Change compares two runs' costs at one price: the relative change of each
// figure and the headline sentence. pricedBy is "flag" or "runs".
func Change(base, cand schemas.Cost, pricedBy string) schemas.CostChange {
	ch := schemas.CostChange{Baseline: base, Candidate: cand, PricedBy: pricedBy}
	ch.CostPerHour = relative(&base.CostPerHour, &cand.CostPerHour)
	ch.CostPerMillionTokens = relative(base.CostPerMillionTokens, cand.CostPerMillionTokens)
	ch.CostPerMillionTokensSaturated = relative(base.CostPerMillionTokensSaturated, cand.CostPerMillionTokensSaturated)
	ch.CostPerCompletion = relative(base.CostPerCompletion, cand.CostPerCompletion)
	ch.Headline, ch.HeadlineFigure = headline(ch)
	return ch
}

// headline is the one sentence that says what the change is worth, and the
// figure it speaks of: per million tokens at saturation where both runs had
// a backlog (what a capacity change moves), else over the whole run, else
// per completion.
func headline(ch schemas.CostChange) (string, string) {
	for _, f := range []struct {
		change     *float64
		key, words string
	}{
		{ch.CostPerMillionTokensSaturated, "cost_per_million_tokens_saturated", "per million tokens at saturation"},
		{ch.CostPerMillionTokens, "cost_per_million_tokens", "per million tokens over the run"},
		{ch.CostPerCompletion, "cost_per_completion", "per completion"},
	} {
		if f.change == nil {
			continue
		}
		d := *f.change
		switch {
		case math.Abs(d) < 0.0005:
			return "costs the same " + f.words, f.key
		case d < 0:
			return fmt.Sprintf("saves %.1f %% %s", -d*100, f.words), f.key
		default:
			return fmt.Sprintf("costs %.1f %% more %s", d*100, f.words), f.key
		}
	}
	return "no cost figure exists in both runs", ""
}

// Figures are the keys of the cost figures, in the order reports list them.
var Figures = []string{"cost_per_hour", "cost_per_million_tokens", "cost_per_million_tokens_saturated", "cost_per_completion"}

// FigureChange is the relative change of the figure named key; nil when
// unknown.
func FigureChange(ch schemas.CostChange, key string) *float64 {
	switch key {
	case "cost_per_hour":
		return ch.CostPerHour
	case "cost_per_million_tokens":
		return ch.CostPerMillionTokens
	case "cost_per_million_tokens_saturated":
		return ch.CostPerMillionTokensSaturated
	case "cost_per_completion":
		return ch.CostPerCompletion
	}
	return nil
}

// Figure is the cost figure named key ("cost_per_hour",
// "cost_per_million_tokens", …) of c; nil for an unknown key or an unknown
// figure.
func Figure(c schemas.Cost, key string) *float64 {
	switch key {
	case "cost_per_hour":
		return &c.CostPerHour
	case "cost_per_million_tokens":
		return c.CostPerMillionTokens
	case "cost_per_million_tokens_saturated":
		return c.CostPerMillionTokensSaturated
	case "cost_per_completion":
		return c.CostPerCompletion
	}
	return nil
}

// relative is cand / base − 1, nil when either is unknown or base is zero.
func relative(base, cand *float64) *float64 {
	if base == nil || cand == nil || *base == 0 {
		return nil
	}
	return ptr(*cand / *base - 1)
}

func ptr(v float64) *float64 { return &v }

// Compare prices two analysed runs alike: at price when given (each run's
// replicas from its logs, or price.Replicas), else at the prices the runs
// were analysed with. It returns nil, and a note saying why when the user
// could expect a comparison, when there is no price to compare at.
func Compare(base, cand schemas.Summary, bw, cw []schemas.Metrics, price *Pricing) (*schemas.CostChange, string) {
	if price != nil {
		ch := Change(Price(base, bw, *price, NamedReplicas(base)), Price(cand, cw, *price, NamedReplicas(cand)), "flag")
		return &ch, ""
	}
	switch {
	case base.Cost == nil && cand.Cost == nil:
		return nil, ""
	case base.Cost == nil || cand.Cost == nil:
		return nil, "cost not compared: only one run was analysed with a price (Try: compare --replica-cost-per-hour PRICE)"
	case base.Cost.Currency != cand.Cost.Currency:
		return nil, fmt.Sprintf("cost not compared: the runs are priced in %q and %q (Try: compare --replica-cost-per-hour PRICE --currency C)", base.Cost.Currency, cand.Cost.Currency)
	}
	ch := Change(*base.Cost, *cand.Cost, "runs")
	return &ch, ""
}
