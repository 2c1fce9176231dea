package retry

import "time"

// Model health's thresholds (docs/design.md "Model health"): when a model's
// own failures take it out of every chain, and when it comes back.
const (
	// ModelFailuresToDisable is how many consecutive model-specific
	// failures (failure.Class.ModelSpecific) disable a model.
	ModelFailuresToDisable = 5
	// ModelCooldown is how old a disabled model's last failure must be
	// before the recovery function re-enables it.
	ModelCooldown = time.Hour
	// ModelResetTo is the failure count a re-enabled model restarts from:
	// with ModelFailuresToDisable, three more failures disable it again.
	ModelResetTo = 2
)
