package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundTwentyOne holds members of the families holdout round
// 21 showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's, and what the new rules must leave alone.
func TestFamiliesOfRoundTwentyOne(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		// a code of a destination that is gone outranks a permission's word
		"FCM's code beside a permission's word":  {failure.Evidence{Provider: "firebase", Stage: work.Notify, Text: `messaging/registration-token-not-registered: the app no longer has permission to notify this instance`}, nf},
		"a push SDK's camel-case code":           {failure.Evidence{Provider: "pushy", Stage: work.Notify, Status: 400, Body: []byte(`{"code":"DeviceUnregistered","error":"the user revoked notification permission on this device"}`)}, nf},
		"an archived channel, not a forbidden":   {failure.Evidence{Provider: "chatops", Stage: work.Notify, Text: `post refused: forbidden (code=channel_is_archived)`}, nf},
		"a deleted user's code in a 400":         {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 400, Body: []byte(`{"error":"user_deleted","message":"you do not have permission to message this user"}`)}, nf},
		"a permission alone stays a permission":  {failure.Evidence{Provider: "pushy", Stage: work.Notify, Text: "the app lost its permission to send notifications"}, ad},
		"prose 'deleted' is no code":             {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 400, Body: []byte(`{"message":"permission denied: the token was deleted by an admin"}`)}, ad},
		"a hidden page's not_found stays hidden": {failure.Evidence{Provider: "notion", Stage: work.Fetch, Status: 404, Body: []byte(`{"object":"error","status":404,"code":"object_not_found","message":"Could not find page. Make sure the relevant pages and databases are shared with your integration."}`)}, ad},
		// a model provider's code that the model or endpoint is not there
		"another dotted NotFound with a 404":  {failure.Evidence{Provider: "hunyuan", Stage: work.LLM, Status: 404, Body: []byte(`{"error":{"code":"ResourceNotFound.Model","message":"the requested model is unavailable"}}`)}, ce},
		"a dotted endpoint code, no status":   {failure.Evidence{Provider: "volcengine", Stage: work.LLM, Text: "ark: InvalidEndpoint.NotFound: ep-20250101-xxxxx"}, ce},
		"a camel-case ModelNotFound":          {failure.Evidence{Provider: "dashscope", Stage: work.LLM, Text: "request failed: code=ModelNotFound, request_id=0000"}, ce},
		"ModelNotFound with nothing named":    {failure.Evidence{Text: "InvokeModel rejected: ModelNotFoundError for qwen-max-latest"}, ce},
		"model_not_found in a 404 body":       {failure.Evidence{Provider: "mistral", Stage: work.LLM, Status: 404, Body: []byte(`{"object":"error","message":"","type":"invalid_request_error","code":"model_not_found"}`)}, ce},
		"AWS's NotFoundException stays AWS's": {failure.Evidence{Provider: "dynamodb", Stage: work.LLM, Text: "operation error DynamoDB: GetItem, https response error StatusCode: 400, RequestID: X, ResourceNotFoundException: Requested resource not found"}, ib},
		"Bedrock's unknown model id":          {failure.Evidence{Provider: "bedrock", Stage: work.LLM, Status: 404, Body: []byte(`{"message":"Could not resolve the foundation model from the provided model identifier."}`), Code: "ResourceNotFoundException"}, ce},
		// an object store's answer inside gRPC's UNKNOWN
		"COS's 403 inside gRPC's Unknown":      {failure.Evidence{Provider: "velero-cos", Stage: work.Fetch, Text: "rpc error: code = Unknown desc = GET https://bkt-1250000000.cos.ap-guangzhou.myqcloud.com/backups: 403 AccessDenied(Message: Access Denied., RequestId: NjA=)"}, ad},
		"MinIO's code inside gRPC's Unknown":   {failure.Evidence{Provider: "restic", Stage: work.Fetch, Text: "rpc error: code = Unknown desc = AccessDenied: Access Denied. (bucket backups)"}, ad},
		"Java gRPC's UNKNOWN around OSS's key": {failure.Evidence{Provider: "oss-plugin", Stage: work.Fetch, Text: "io.grpc.StatusRuntimeException: UNKNOWN: com.aliyun.oss.OSSException: The OSS Access Key Id you provided does not exist in our records. [ErrorCode]: InvalidAccessKeyId [RequestId]: 5C3A"}, ad},
		"a 503 inside gRPC's Unknown":          {failure.Evidence{Provider: "velero-oss", Stage: work.Fetch, Text: "rpc error: code = Unknown desc = oss: service returned error: StatusCode=503, ErrorCode=ServiceUnavailable"}, uu},
		"gRPC's Unknown alone stays a 5xx":     {failure.Evidence{Provider: "velero-oss", Stage: work.Fetch, Text: "rpc error: code = Unknown desc = plugin crashed while listing"}, uu},
		"gRPC's Unknown with a transport word": {failure.Evidence{Stage: work.Fetch, Text: "rpc error: code = Unknown desc = transport is closing"}, nt},
		"Java gRPC's UNKNOWN alone":            {failure.Evidence{Provider: "oss-plugin", Stage: work.Fetch, Text: "io.grpc.StatusRuntimeException: UNKNOWN: plugin exited unexpectedly"}, uu},
		"triage's own UNKNOWN stays its own":   {failure.Evidence{Stage: work.Fetch, Text: "fetch: UNKNOWN: no rule matched"}, failure.Unknown},
		// a limit the receiver says is used up: "out of … limit"
		"a robot's 200 out of its send count":    {failure.Evidence{Provider: "wecom", Stage: work.Notify, Status: 200, Body: []byte(`{"errcode":45033,"errmsg":"out of send count limit, hint: [x]"}`)}, rl},
		"a source's 2xx out of a daily limit":    {failure.Evidence{Stage: work.Fetch, Status: 200, Body: []byte(`{"errno":1003,"message":"account out of daily call limit"}`)}, be},
		"a 400 out of its request limit":         {failure.Evidence{Provider: "sms-gateway", Stage: work.Notify, Status: 400, Body: []byte(`{"error":"sender is out of request limit, try later"}`)}, rl},
		"a text that ran out of its quota":       {failure.Evidence{Provider: "mailer", Stage: work.Notify, Text: "send failed: ran out of quota for this sender"}, rl},
		"out of range before a limit is a value": {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 400, Body: []byte(`{"error":"index out of range: limit must be at most 100"}`)}, si},
	})
}
