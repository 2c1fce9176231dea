package lambda

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Runtime API paths and headers
// (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html).
const (
	apiPrefix = "/2018-06-01/runtime"

	headerRequestID   = "Lambda-Runtime-Aws-Request-Id"
	headerDeadline    = "Lambda-Runtime-Deadline-Ms"
	headerFunctionARN = "Lambda-Runtime-Invoked-Function-Arn"
	headerTraceID     = "Lambda-Runtime-Trace-Id"
	headerErrorType   = "Lambda-Runtime-Function-Error-Type"
	// trailerErrorBody carries a base64 error document when a streamed
	// response fails midway (aws-lambda-go sets it with headerErrorType as
	// a trailer).
	trailerErrorBody = "Lambda-Runtime-Function-Error-Body"

	// maxErrorSize bounds an error or init-error document.
	maxErrorSize = 1 << 20
)

func (e *environment) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+apiPrefix+"/invocation/next", e.next)
	mux.HandleFunc("POST "+apiPrefix+"/invocation/{id}/response", e.response)
	mux.HandleFunc("POST "+apiPrefix+"/invocation/{id}/error", e.invocationError)
	mux.HandleFunc("POST "+apiPrefix+"/init/error", e.initError)
	return mux
}

// next blocks until an invocation is handed to this environment, then
// answers with the event and its metadata headers.
func (e *environment) next(w http.ResponseWriter, r *http.Request) {
	// Signal the poll before marking init done, so that a cold start's
	// signal is already there when Invoke drops it before dispatching.
	select {
	case e.polling <- struct{}{}:
	default:
	}
	e.markReady()
	select {
	case inv := <-e.pending:
		e.mu.Lock()
		e.current = inv
		e.mu.Unlock()
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set(headerRequestID, inv.id)
		h.Set(headerDeadline, strconv.FormatInt(inv.deadline.UnixMilli(), 10))
		h.Set(headerFunctionARN, inv.arn)
		h.Set(headerTraceID, inv.traceID)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(inv.payload)
	case <-e.stopped:
		apiError(w, http.StatusInternalServerError, "Runtime.ExitError", "the execution environment is shutting down")
	case <-r.Context().Done():
	}
}

// response records the function's response to the current invocation.
func (e *environment) response(w http.ResponseWriter, r *http.Request) {
	inv := e.take(r.PathValue("id"))
	if inv == nil {
		invalidRequestID(w)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxResponseSize+1))
	switch {
	case err != nil:
		inv.done <- failed("Runtime.Unknown", "RequestId: "+inv.id+" Error: reading the response: "+err.Error())
		apiError(w, http.StatusBadRequest, "InvalidRequest", err.Error())
		return
	case len(body) > MaxResponseSize:
		inv.done <- failed(ErrorTypeResponseTooLarge,
			"Response payload size exceeded maximum allowed payload size ("+strconv.Itoa(MaxResponseSize)+" bytes).")
		apiError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge",
			"Exceeded maximum allowed payload size ("+strconv.Itoa(MaxResponseSize)+" bytes).")
		return
	}
	// A response whose body failed midway carries the error in trailers.
	if typ := r.Trailer.Get(headerErrorType); typ != "" {
		doc, _ := base64.StdEncoding.DecodeString(r.Trailer.Get(trailerErrorBody))
		fe := parseError(doc, typ, ErrorTypeUnhandled)
		inv.done <- reply{payload: errorPayload(doc, fe), err: fe}
	} else {
		inv.done <- reply{payload: body}
	}
	accepted(w)
}

// invocationError records the function's error for the current invocation.
func (e *environment) invocationError(w http.ResponseWriter, r *http.Request) {
	inv := e.take(r.PathValue("id"))
	if inv == nil {
		invalidRequestID(w)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxErrorSize))
	fe := parseError(body, r.Header.Get(headerErrorType), ErrorTypeUnhandled)
	inv.done <- reply{payload: errorPayload(body, fe), err: fe}
	accepted(w)
}

// initError records an init failure; it is only valid before the first
// /next.
func (e *environment) initError(w http.ResponseWriter, r *http.Request) {
	select {
	case <-e.ready:
		apiError(w, http.StatusForbidden, "InvalidStateTransition", "init error reported after init completed")
		return
	default:
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxErrorSize))
	if !e.setInitError(parseError(body, r.Header.Get(headerErrorType), ErrorTypeInit)) {
		apiError(w, http.StatusForbidden, "InvalidStateTransition", "init error already reported")
		return
	}
	accepted(w)
}

// parseError reads an error document {"errorMessage", "errorType"}; the
// type falls back to the header, then to def. A body that is not such a
// document becomes the message.
func parseError(body []byte, headerType, def string) *FunctionError {
	var doc struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType"`
	}
	fe := &FunctionError{}
	if json.Unmarshal(body, &doc) == nil {
		fe.Type, fe.Message = doc.ErrorType, doc.ErrorMessage
	} else {
		fe.Message = strings.TrimSpace(string(body))
	}
	if fe.Type == "" {
		fe.Type = headerType
	}
	if fe.Type == "" {
		fe.Type = def
	}
	return fe
}

// errorPayload is what Invoke returns for a function error: the runtime's
// document as posted when it is a JSON object, otherwise one built from fe.
func errorPayload(body []byte, fe *FunctionError) []byte {
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil && obj != nil {
		return body
	}
	return errorDocument(fe.Type, fe.Message)
}

func failed(typ, msg string) reply {
	return reply{payload: errorDocument(typ, msg), err: &FunctionError{Type: typ, Message: msg}}
}

func accepted(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, `{"status":"OK"}`)
}

func invalidRequestID(w http.ResponseWriter) {
	apiError(w, http.StatusBadRequest, "InvalidRequestID", "Invalid request ID")
}

func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorDocument(typ, msg))
}
