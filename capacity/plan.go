package capacity

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/tpsreport/tpsreport/schemas"
)

// Measured is one analysed run that plan sizes a fleet from.
type Measured struct {
	Name    string // the run's directory, as the user named it
	Summary schemas.Summary
	Windows []schemas.Metrics
	// Latencies are the run's delivered requests (latencies.parquet); read
	// only with an SLO, to count per window the requests that met it.
	Latencies []schemas.RequestLatency
}

// Settings are plan's flags.
type Settings struct {
	TargetRPM   float64      // requests per minute the fleet must serve
	SLO         *schemas.SLO // nil: capacity counts every completion
	Attainment  float64      // with an SLO: the share of requests a window must meet it for (0.9)
	Utilization float64      // the share of the measured capacity to plan for (0.8)
	// Replicas, when above zero, is the number of replicas the measured
	// runs had (--replicas), for runs whose logs do not name them.
	Replicas int64
	// Pricing, when set, prices each plan (its cost per hour).
	Pricing *Pricing
}

// DefaultAttainment and DefaultUtilization are plan's defaults.
const (
	DefaultAttainment  = 0.9
	DefaultUtilization = 0.8
)

// ErrBadSettings is returned for plan settings out of range.
var ErrBadSettings = errors.New("bad plan settings")

// Validate refuses settings that cannot size a fleet.
// MaxTargetRPM bounds --target-rpm: a trillion requests a minute.
const MaxTargetRPM = 1e12

func (s Settings) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if !finite(s.TargetRPM) || s.TargetRPM <= 0 {
		return fmt.Errorf("%w: --target-rpm %v: want a positive number of requests per minute", ErrBadSettings, s.TargetRPM)
	}
	if s.TargetRPM > MaxTargetRPM {
		// Past it the replica counts overflow what a plan can say.
		return fmt.Errorf("%w: --target-rpm %v: want at most %v requests per minute", ErrBadSettings, s.TargetRPM, MaxTargetRPM)
	}
	if !finite(s.Utilization) || s.Utilization <= 0 || s.Utilization > 1 {
		return fmt.Errorf("%w: --utilization %v: want a share of capacity in (0, 1], such as 0.8", ErrBadSettings, s.Utilization)
	}
	if !finite(s.Attainment) || s.Attainment <= 0 || s.Attainment > 1 {
		return fmt.Errorf("%w: --attainment %v: want a share of requests in (0, 1], such as 0.9", ErrBadSettings, s.Attainment)
	}
	if s.Replicas < 0 {
		return fmt.Errorf("%w: --replicas %d: want a positive number, or 0 for the replicas the logs name", ErrBadSettings, s.Replicas)
	}
	if s.Pricing != nil {
		return s.Pricing.Validate()
	}
	return nil
}

// Plan is the fleet one measured run calls for (docs/metrics.md "Cost and
// capacity"): replicas by throughput and by Little's law, each with the
// numbers it comes from, and the larger of the two.
type Plan struct {
	Run   string `json:"run"`    // directory
	RunID string `json:"run_id"` // run_id of the measured run
	// Replicas the measured run had, and where that number comes from
	// (flag, logs, assumed), as for cost.
	MeasuredReplicas int64          `json:"measured_replicas"`
	ReplicasSource   string         `json:"measured_replicas_source"`
	Throughput       ThroughputPlan `json:"throughput"`
	Little           LittlePlan     `json:"littles_law"`
	// Replicas is the larger of the two routes' answers (nil when neither
	// could be computed); Basis names the route that set it.
	Replicas *int64 `json:"replicas"`
	Basis    string `json:"basis,omitempty"` // "throughput" or "littles_law"
	// SLOMissed, with an SLO, says that no window of the run had the
	// share of its requests meet the SLO that Settings.Attainment asks:
	// the run shows no capacity at that SLO, so neither route sizes a
	// fleet from it and it is never the pick.
	SLOMissed   string   `json:"slo_missed,omitempty"`
	CostPerHour *float64 `json:"cost_per_hour,omitempty"`
	Currency    string   `json:"currency,omitempty"`
}

// ThroughputPlan: per-replica capacity = completions per second per replica
// over the backlog windows (with an SLO: those where at least Attainment of
// the completed requests met it, counting only the requests that met it);
// replicas = ⌈R/60 / (capacity × utilization)⌉.
type ThroughputPlan struct {
	Windows            int      `json:"windows"`                    // windows the capacity is measured over
	WindowsSkipped     int      `json:"windows_below_attainment"`   // backlog windows left out for missing the SLO
	Seconds            float64  `json:"seconds"`                    // their total length
	Completions        int64    `json:"completions"`                // succeeded requests (with an SLO: those meeting it) in them
	CapacityPerReplica *float64 `json:"capacity_per_replica"`       // requests per second
	Replicas           *int64   `json:"replicas"`                   // nil when no window qualifies
	Reason             string   `json:"reason,omitempty"`           // why Replicas is nil
	Requests           int64    `json:"requests_completed"`         // all requests completed in those windows
	Attainment         *float64 `json:"slo_attainment,omitempty"`   // Completions / Requests with an SLO
	MinWindowShare     *float64 `json:"min_window_share,omitempty"` // Settings.Attainment with an SLO
}

// LittlePlan: concurrency = R/60 × mean slot time (t_in_flight, admission to
// release, of the run's successful spans); replicas = ⌈concurrency / (cap
// per replica × utilization)⌉. The slot time, not e2e_req: a run measured
// under backlog waited in a queue that the planned fleet is sized to remove,
// and a waiting request holds no slot.
type LittlePlan struct {
	MeanSlotSeconds *float64 `json:"mean_t_in_flight"`
	Concurrency     *float64 `json:"concurrency"`
	CapPerReplica   *float64 `json:"cap_per_replica"` // the run's pool cap / its replicas
	CapSource       string   `json:"cap_source"`
	Replicas        *int64   `json:"replicas"`
	Reason          string   `json:"reason,omitempty"`
}

// Route names of Plan.Basis.
const (
	ByThroughput = "throughput"
	ByLittle     = "littles_law"
)

// Size plans a fleet for s.TargetRPM from one measured run.
func Size(m Measured, s Settings) (Plan, error) {
	p := Plan{Run: m.Name, RunID: m.Summary.RunID}
	named := NamedReplicas(m.Summary)
	switch {
	case s.Replicas > 0:
		p.MeasuredReplicas, p.ReplicasSource = s.Replicas, FromFlag
	case m.Summary.Cost != nil && m.Summary.Cost.ReplicasSource == FromFlag:
		p.MeasuredReplicas, p.ReplicasSource = m.Summary.Cost.Replicas, FromFlag
	case named > 0:
		p.MeasuredReplicas, p.ReplicasSource = named, FromLogs
	default:
		p.MeasuredReplicas, p.ReplicasSource = 1, Assumed
	}
	rate := s.TargetRPM / 60
	var met []int64
	if s.SLO != nil {
		if m.Latencies == nil {
			return p, fmt.Errorf("%s has no %s to judge the SLO by (Try: tpsreport analyze %s)", m.Name, schemas.LatenciesFile, m.Name)
		}
		met = MetPerWindow(m.Windows, m.Latencies, *s.SLO)
	}
	p.Throughput = throughputRoute(m, s, met, p.MeasuredReplicas, rate)
	p.Little = littleRoute(m.Summary, s, p.MeasuredReplicas, rate)
	if s.SLO != nil {
		sloGate(&p, m.Windows, met, s)
	}
	for _, r := range []struct {
		n     *int64
		basis string
	}{{p.Throughput.Replicas, ByThroughput}, {p.Little.Replicas, ByLittle}} {
		if r.n != nil && (p.Replicas == nil || *r.n > *p.Replicas) {
			p.Replicas, p.Basis = r.n, r.basis
		}
	}
	if p.Replicas != nil {
		var price float64
		switch {
		case s.Pricing != nil:
			price, p.Currency = s.Pricing.ReplicaCostPerHour, s.Pricing.Currency
		case m.Summary.Cost != nil:
			price, p.Currency = m.Summary.Cost.ReplicaCostPerHour, m.Summary.Cost.Currency
		}
		if price > 0 {
			p.CostPerHour = ptr(float64(*p.Replicas) * price)
		}
	}
	return p, nil
}

// sloGate keeps a run that does not meet the SLO from being sized. A run
// of which no window met it (for Attainment of its requests) shows no
// capacity at the SLO: no route sizes a fleet from it. Little's law sizes
// from the run's mean slot time, so it counts only when the run as a whole
// met the SLO: a slot time whose requests missed it would size a fleet
// that misses it too.
func sloGate(p *Plan, windows []schemas.Metrics, met []int64, s Settings) {
	var ok, all int64
	anyWindow := false
	for i, w := range windows {
		ok += met[i]
		all += w.Requests
		if w.Requests > 0 && float64(met[i]) >= s.Attainment*float64(w.Requests) {
			anyWindow = true
		}
	}
	switch {
	case all == 0:
		p.SLOMissed = "no request completed: nothing to judge the SLO by"
	case !anyWindow:
		p.SLOMissed = fmt.Sprintf("the run never met the SLO: in no window did %s of the requests meet it (%s did over the run)",
			percent(s.Attainment), percent(float64(ok)/float64(all)))
	}
	if p.SLOMissed != "" {
		p.Throughput.Replicas, p.Throughput.CapacityPerReplica = nil, nil
		if p.Throughput.Reason == "" {
			p.Throughput.Reason = p.SLOMissed
		}
		p.Little.Replicas, p.Little.Concurrency = nil, nil
		p.Little.Reason = "the run never met the SLO, so its slot time is not one of a fleet that meets it"
		return
	}
	if share := float64(ok) / float64(all); share < s.Attainment && p.Little.Replicas != nil {
		p.Little.Replicas, p.Little.Concurrency = nil, nil
		p.Little.Reason = fmt.Sprintf("over the run %s of the requests met the SLO, under %s: its slot time is not one of a fleet that meets it",
			percent(share), percent(s.Attainment))
	}
}

func throughputRoute(m Measured, s Settings, met []int64, replicas int64, rate float64) ThroughputPlan {
	var t ThroughputPlan
	if met != nil {
		t.MinWindowShare = ptr(s.Attainment)
	}
	for i, w := range m.Windows {
		if w.BacklogTime <= 0 || w.WindowSeconds <= 0 {
			continue
		}
		done := w.SucceededRequests
		if met != nil {
			if w.Requests == 0 || float64(met[i]) < s.Attainment*float64(w.Requests) {
				t.WindowsSkipped++
				continue
			}
			done = met[i]
		}
		t.Windows++
		t.Seconds += w.WindowSeconds
		t.Completions += done
		t.Requests += w.Requests
	}
	if s.SLO != nil && t.Requests > 0 {
		t.Attainment = ptr(float64(t.Completions) / float64(t.Requests))
	}
	switch {
	case t.Windows == 0 && t.WindowsSkipped > 0:
		t.Reason = fmt.Sprintf("no backlog window met the SLO for %s of its requests", percent(s.Attainment))
	case t.Windows == 0:
		t.Reason = "no window had a backlog: the run never saturated, so it does not show capacity"
	case t.Completions == 0:
		t.Reason = "no request completed in the backlog windows"
	default:
		c := float64(t.Completions) / t.Seconds / float64(replicas)
		t.CapacityPerReplica = ptr(c)
		t.Replicas = ceilCount(rate / (c * s.Utilization))
	}
	return t
}

func littleRoute(sum schemas.Summary, s Settings, replicas int64, rate float64) LittlePlan {
	l := LittlePlan{MeanSlotSeconds: sum.TInFlight.Mean, CapSource: sum.CapSource}
	if sum.Cap != nil && *sum.Cap > 0 {
		l.CapPerReplica = ptr(float64(*sum.Cap) / float64(replicas))
	}
	switch {
	case l.MeanSlotSeconds == nil:
		l.Reason = "no successful span has an admission and a release time"
	case l.CapPerReplica == nil:
		l.Reason = "the run has no cap"
	default:
		conc := rate * *l.MeanSlotSeconds
		l.Concurrency = ptr(conc)
		l.Replicas = ceilCount(conc / (*l.CapPerReplica * s.Utilization))
	}
	return l
}

// MetPerWindow counts, per window, the delivered requests completed in it
// that met slo (a latency belongs to the window holding its completion; the
// run's last instant to the last window).
func MetPerWindow(windows []schemas.Metrics, lat []schemas.RequestLatency, slo schemas.SLO) []int64 {
	met := make([]int64, len(windows))
	if len(windows) == 0 {
		return met
	}
	starts := make([]int64, len(windows))
	for i, w := range windows {
		starts[i] = schemas.Micros(w.WindowStart)
	}
	last := schemas.Micros(windows[len(windows)-1].WindowEnd)
	for _, r := range lat {
		i := sort.Search(len(starts), func(i int) bool { return starts[i] > r.Released }) - 1
		if i < 0 || r.Released > last || r.Released >= schemas.Micros(windows[i].WindowEnd) && i != len(windows)-1 {
			continue
		}
		if slo.Met(r) {
			met[i]++
		}
	}
	return met
}

// ceilCount is ⌈x⌉ as a count of replicas, at least one. A quotient a
// rounding error above a whole number (4.000000000001) is that number.
func ceilCount(x float64) *int64 {
	n := max(int64(math.Ceil(x-1e-9)), 1)
	return &n
}

// Best is the index of the plan that needs the fewest replicas (the cheaper
// per hour on a tie, then the first); -1 when no plan has a count.
func Best(plans []Plan) int {
	best := -1
	for i, p := range plans {
		if p.Replicas == nil {
			continue
		}
		if best < 0 || *p.Replicas < *plans[best].Replicas ||
			*p.Replicas == *plans[best].Replicas && cheaper(p.CostPerHour, plans[best].CostPerHour) {
			best = i
		}
	}
	return best
}

func cheaper(a, b *float64) bool { return a != nil && b != nil && *a < *b }

// BasisText puts a basis in words for people: "by throughput", "by Little's law".
func BasisText(basis string) string {
	return map[string]string{ByThroughput: "by throughput", ByLittle: "by Little's law"}[basis]
}

func percent(f float64) string { return strconv.FormatFloat(f*100, 'g', 4, 64) + " %" }
