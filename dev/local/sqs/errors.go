package sqs

import (
	"fmt"
	"net/http"
)

// apiError is an SQS error as the JSON protocol carries it: the shape name
// in the body's __type, the query protocol's code and fault in
// X-Amzn-Query-Error (the SDK reports that code from ErrorCode(), since SQS
// is query-compatible), and the HTTP status of the service model.
type apiError struct {
	shape   string // the model's error shape, e.g. "QueueDoesNotExist"
	code    string // the query code, e.g. "AWS.SimpleQueueService.NonExistentQueue"
	status  int
	message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

// errorKind is a row of the service model's error table.
type errorKind struct {
	shape, code string
	status      int
}

// The errors the emulator returns, with the shape, query code and status of
// the SDK's service model (aws-sdk-go-v2/service/sqs schemas). The last
// three are not modelled shapes: AWS returns them as generic errors, which
// the SDK reports by their query code.
var (
	errQueueDoesNotExist        = errorKind{"QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", 400}
	errQueueNameExists          = errorKind{"QueueNameExists", "QueueAlreadyExists", 400}
	errReceiptHandleIsInvalid   = errorKind{"ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", 404}
	errMessageNotInflight       = errorKind{"MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight", 400}
	errTooManyEntries           = errorKind{"TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400}
	errEmptyBatch               = errorKind{"EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest", 400}
	errBatchEntryIdsNotDistinct = errorKind{"BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400}
	errInvalidBatchEntryID      = errorKind{"InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId", 400}
	errBatchRequestTooLong      = errorKind{"BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong", 400}
	errPurgeQueueInProgress     = errorKind{"PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", 403}
	errUnsupportedOperation     = errorKind{"UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", 400}
	errInvalidAddress           = errorKind{"InvalidAddress", "InvalidAddress", 404}
	errInvalidAttributeName     = errorKind{"InvalidAttributeName", "InvalidAttributeName", 400}
	errInvalidAttributeValue    = errorKind{"InvalidAttributeValue", "InvalidAttributeValue", 400}
	errInvalidMessageContents   = errorKind{"InvalidMessageContents", "InvalidMessageContents", 400}
	errInvalidParameterValue    = errorKind{"InvalidParameterValue", "InvalidParameterValue", 400}
	errMissingParameter         = errorKind{"MissingParameter", "MissingParameter", 400}
	errInvalidAction            = errorKind{"InvalidAction", "InvalidAction", 400}
)

func newError(k errorKind, format string, args ...any) *apiError {
	return &apiError{shape: k.shape, code: k.code, status: k.status, message: fmt.Sprintf(format, args...)}
}

// batchFailure is one entry of a batch call's Failed list.
type batchFailure struct {
	ID          string `json:"Id"`
	SenderFault bool   `json:"SenderFault"`
	Code        string `json:"Code"`
	Message     string `json:"Message,omitempty"`
}

// failure turns an error met by one entry of a batch into its Failed entry:
// AWS names the entry's error by its query code.
func failure(id string, err *apiError) batchFailure {
	return batchFailure{ID: id, SenderFault: err.status < http.StatusInternalServerError, Code: entryCode(err), Message: err.message}
}

// entryCode is the code of a batch entry's failure: the shape name, as AWS
// spells it in the Failed list ("ReceiptHandleIsInvalid",
// "MessageNotInflight", "InvalidParameterValue").
func entryCode(err *apiError) string { return err.shape }
