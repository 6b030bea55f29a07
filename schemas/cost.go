package schemas

// Cost is summary.json's "cost" (docs/metrics.md "Cost and capacity"): what
// the run's throughput costs at a price per replica-hour. Figures whose
// denominator is zero (no delivered token, no backlog window, no
// completion) are nil.
type Cost struct {
	// ReplicaCostPerHour is the price of one replica for one hour, in the
	// user's currency; Currency only labels it ("" when not given).
	ReplicaCostPerHour float64 `json:"replica_cost_per_hour"`
	Currency           string  `json:"currency,omitempty"`
	// Replicas priced, and where the number comes from: "flag" (--replicas),
	// "logs" (the distinct replicas the spans name) or "assumed" (one,
	// when neither names any).
	Replicas       int64  `json:"replicas"`
	ReplicasSource string `json:"replicas_source"`

	CostPerHour float64 `json:"cost_per_hour"` // replicas × replica_cost_per_hour
	// CostPerMillionTokens: cost_per_hour / 3600 / retry_adjusted_system_tps
	// × 10^6 over the whole run (idle time included).
	CostPerMillionTokens *float64 `json:"cost_per_million_tokens"`
	// CostPerMillionTokensSaturated: the same over the backlog windows only
	// (delivered tokens / their seconds): the price of a token when the
	// fleet has work waiting, which is what a capacity change moves.
	CostPerMillionTokensSaturated *float64 `json:"cost_per_million_tokens_saturated"`
	// CostPerCompletion: cost_per_hour / 3600 / (succeeded requests / run seconds).
	CostPerCompletion *float64 `json:"cost_per_completion"`
}

// CostChange is compare's view of cost: both runs priced alike, and the
// relative change of each figure (candidate / baseline − 1; negative saves).
// It is information and changes no verdict.
type CostChange struct {
	Baseline  Cost `json:"baseline"`
	Candidate Cost `json:"candidate"`
	// PricedBy says where the price came from: "flag" (compare's
	// --replica-cost-per-hour, applied to both) or "runs" (each run's own
	// summary.json cost).
	PricedBy                      string   `json:"priced_by"`
	CostPerHour                   *float64 `json:"cost_per_hour_change"`
	CostPerMillionTokens          *float64 `json:"cost_per_million_tokens_change"`
	CostPerMillionTokensSaturated *float64 `json:"cost_per_million_tokens_saturated_change"`
	CostPerCompletion             *float64 `json:"cost_per_completion_change"`
	// Headline is the sentence the console and the report lead with
	// ("saves 10.5 % per million tokens at saturation"), and HeadlineFigure
	// the figure it speaks of ("cost_per_million_tokens_saturated"; "" when
	// no figure exists in both runs).
	Headline       string `json:"headline"`
	HeadlineFigure string `json:"headline_figure,omitempty"`
}
