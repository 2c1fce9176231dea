package policy

import "time"

// DLQReleaseCall bounds one ChangeMessageVisibilityBatch call that makes
// visible again up to ten DLQ messages a replay, a resolve or a listing held
// while it read its DLQs. Each call has its own bound: a slow or failed
// call leaves its own messages to their visibility timeout, never the
// calls after it.
const DLQReleaseCall = 5 * time.Second
