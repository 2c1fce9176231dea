package failure

import "errors"

// DetailError attaches operational context (model, host, upstream request id)
// to an error without changing its class. Details flow into the item's
// last_error and the dead letter's sanitized_context, after redaction.
type DetailError struct {
	// Err is the failure.
	Err error
	// Key and Value are one detail; chain WithDetail for more.
	Key, Value string
}

// WithDetail wraps err with one key/value detail; a nil err stays nil.
func WithDetail(err error, key, value string) error {
	if err == nil {
		return nil
	}
	return &DetailError{Err: err, Key: key, Value: value}
}

// Error returns the wrapped error's text: details are metadata, not message.
func (e *DetailError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *DetailError) Unwrap() error { return e.Err }

// Details collects every detail along err's chain; the outermost value of a
// key wins. It returns nil when there are none.
func Details(err error) map[string]string {
	var out map[string]string
	for err != nil {
		var d *DetailError
		if !errors.As(err, &d) {
			break
		}
		if out == nil {
			out = map[string]string{}
		}
		if _, seen := out[d.Key]; !seen {
			out[d.Key] = d.Value
		}
		err = d.Err
	}
	return out
}
