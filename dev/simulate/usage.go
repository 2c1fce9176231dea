package simulate

import (
	"math"
	"time"
)

// SQS APIs the simulation counts.
type sqsAPI int

const (
	sqsSendMessage sqsAPI = iota
	sqsSendMessageBatch
	sqsReceiveMessage
	sqsDeleteMessageBatch
	sqsChangeVisibilityBatch
	nSQS
)

var sqsNames = [nSQS]string{"SendMessage", "SendMessageBatch", "ReceiveMessage", "DeleteMessageBatch", "ChangeMessageVisibilityBatch"}

// DynamoDB APIs the simulation counts.
type ddbAPI int

const (
	ddbPutItem ddbAPI = iota
	ddbGetItem
	ddbUpdateItem
	ddbTransactWriteItems
	ddbQuery
	ddbDeleteItem
	ddbScan
	nDDB
)

var ddbNames = [nDDB]string{"PutItem", "GetItem", "UpdateItem", "TransactWriteItems", "Query", "DeleteItem", "Scan"}

// S3 APIs the simulation counts (the bodies bucket).
type s3API int

const (
	s3PutObject s3API = iota
	s3GetObject
	nS3
)

var s3Names = [nS3]string{"PutObject", "GetObject"}

// Functions the simulation bills.
const (
	fnFetch = iota
	fnLLM
	fnNotify
	fnScheduler
	nFn
)

var fnNames = [nFn]string{"FetchFunc", "LLMFunc", "NotifyFunc", "SchedulerFunc"}

// LambdaMemoryMB is the memory of every function (template.yaml Globals),
// which the GB-seconds are billed at.
const LambdaMemoryMB = 256

// sqsChunk is SQS's billing unit: every 64 KiB of a request's payload is
// one request.
const sqsChunk = 64 << 10

// meter counts one run's AWS usage.
type meter struct {
	sqsReq    [nSQS]int64
	sqsBilled int64
	ddbReq    [nDDB]int64
	wru, rru  float64
	s3Req     [nS3]int64
	bodyW     int64
	bodyR     int64
	inv       [nFn]int64
	billedMS  int64
	timeouts  int64
}

func (m *meter) s3(api s3API) { m.s3Req[api]++ }

func (m *meter) sqs(api sqsAPI, payload int) {
	m.sqsReq[api]++
	m.sqsBilled += int64(max(1, (payload+sqsChunk-1)/sqsChunk))
}

func (m *meter) ddb(api ddbAPI, wru, rru float64) {
	m.ddbReq[api]++
	m.wru += wru
	m.rru += rru
}

func (m *meter) lambda(fn int, d time.Duration) {
	m.inv[fn]++
	m.billedMS += max(1, int64(math.Ceil(float64(d)/float64(time.Millisecond))))
}

// Usage is a run's AWS usage: what the simulated functions and the producer
// asked of SQS, DynamoDB and Lambda. Requests are counted as the real code
// makes them (through counting wrappers of the simulated SQS and of
// store.Memory); DynamoDB capacity units follow DynamoDB's rules (a write is
// one WRU per KB of the larger of the item before and after, a transaction
// twice that, a conditional write that fails still consumes its WRU, an
// eventually consistent read half an RRU per 4 KB).
type Usage struct {
	// SQSRequests counts SQS API calls by name; SQSBilledRequests counts
	// them in 64 KiB chunks of payload, as SQS bills them. Receives of the
	// event source mapping that found the queue empty are not counted (a
	// constant cost of a deployed queue, not of items).
	SQSRequests       map[string]int64 `json:"sqs_requests"`
	SQSBilledRequests int64            `json:"sqs_billed_requests"`
	// DynamoDBRequests counts DynamoDB API calls by name.
	DynamoDBRequests map[string]int64 `json:"dynamodb_requests"`
	// WriteRequestUnits and ReadRequestUnits are on-demand capacity units.
	WriteRequestUnits float64 `json:"write_request_units"`
	ReadRequestUnits  float64 `json:"read_request_units"`
	// LambdaInvocations counts invocations by function; LambdaGBSeconds is
	// their billed duration (1 ms granularity) at LambdaMemoryMB.
	LambdaInvocations map[string]int64 `json:"lambda_invocations"`
	LambdaGBSeconds   float64          `json:"lambda_gb_seconds"`
	// LambdaTimeouts counts invocations that would have run past their
	// function timeout (0 for triage: the runner stops before its deadline).
	LambdaTimeouts int64 `json:"lambda_timeouts"`
	// S3Requests counts requests to the bodies bucket by operation
	// (documents and enrichments above the threshold: a PutObject when
	// written, a GetObject when read).
	S3Requests map[string]int64 `json:"s3_requests"`
	// BodyItemWrites and BodyItemReads count the writes and reads of
	// sibling body items (documents and enrichments up to the threshold),
	// also counted in DynamoDBRequests: a write rides in the success
	// TransactWriteItems, a read is a strongly consistent GetItem.
	BodyItemWrites int64 `json:"body_item_writes"`
	BodyItemReads  int64 `json:"body_item_reads"`
}

func (m *meter) usage() Usage {
	return Usage{SQSRequests: counted(sqsNames[:], m.sqsReq[:]), DynamoDBRequests: counted(ddbNames[:], m.ddbReq[:]),
		LambdaInvocations: counted(fnNames[:], m.inv[:]), S3Requests: counted(s3Names[:], m.s3Req[:]),
		SQSBilledRequests: m.sqsBilled, WriteRequestUnits: m.wru, ReadRequestUnits: m.rru, LambdaTimeouts: m.timeouts,
		LambdaGBSeconds: float64(m.billedMS) / 1000 * LambdaMemoryMB / 1024, BodyItemWrites: m.bodyW, BodyItemReads: m.bodyR}
}

// counted maps names[i] to counts[i] for every count above zero.
func counted(names []string, counts []int64) map[string]int64 {
	out := map[string]int64{}
	for i, n := range counts {
		if n > 0 {
			out[names[i]] = n
		}
	}
	return out
}

// S3 returns the S3 requests of u.
func (u Usage) S3() int64 {
	var n int64
	for _, v := range u.S3Requests {
		n += v
	}
	return n
}

// Requests returns the AWS requests of u: SQS (as billed), DynamoDB and
// Lambda invocations (S3: see S3).
func (u Usage) Requests() (sqs, dynamodb, lambda int64) {
	for _, n := range u.DynamoDBRequests {
		dynamodb += n
	}
	for _, n := range u.LambdaInvocations {
		lambda += n
	}
	return u.SQSBilledRequests, dynamodb, lambda
}

// writes counts u's DynamoDB write requests (PutItem, UpdateItem,
// TransactWriteItems, DeleteItem).
func (u Usage) writes() int64 {
	n := int64(0)
	for _, api := range []string{"PutItem", "UpdateItem", "TransactWriteItems", "DeleteItem"} {
		n += u.DynamoDBRequests[api]
	}
	return n
}

// Prices are AWS list prices in US dollars.
type Prices struct {
	// Name and Date say which prices these are and when they applied.
	Name string `json:"name"`
	Date string `json:"date"`
	// SQSPerMillion is the price of a million SQS standard-queue requests
	// (64 KiB chunks).
	SQSPerMillion float64 `json:"sqs_per_million"`
	// WRUPerMillion and RRUPerMillion are DynamoDB on-demand prices.
	WRUPerMillion float64 `json:"wru_per_million"`
	RRUPerMillion float64 `json:"rru_per_million"`
	// LambdaPerMillion is the price of a million invocations; GBSecond the
	// price of one GB-second on arm64.
	LambdaPerMillion float64 `json:"lambda_per_million"`
	GBSecond         float64 `json:"gb_second"`
	// S3PutPerThousand and S3GetPerThousand are S3 Standard request
	// prices (PUT, GET) per 1,000 requests.
	S3PutPerThousand float64 `json:"s3_put_per_thousand"`
	S3GetPerThousand float64 `json:"s3_get_per_thousand"`
}

// DefaultPrices are the prices the simulator reports with: us-east-1 list
// prices with DynamoDB on-demand at its rates until 2024-11-01 ($1.25 per
// million WRU, $0.25 per million RRU). DynamoDB is the service triage uses
// and the baselines barely do, so these higher rates are the conservative
// choice for the comparison; CurrentPrices has today's.
var DefaultPrices = Prices{
	Name: "us-east-1 list, DynamoDB on-demand before its 2024-11-01 cut", Date: "2024-10",
	SQSPerMillion: 0.40, WRUPerMillion: 1.25, RRUPerMillion: 0.25, LambdaPerMillion: 0.20, GBSecond: 0.0000133334,
	S3PutPerThousand: 0.005, S3GetPerThousand: 0.0004,
}

// CurrentPrices are us-east-1 list prices since DynamoDB halved its
// on-demand rates on 2024-11-01 ($0.625 per million WRU, $0.125 per million
// RRU); SQS, S3 and Lambda arm64 unchanged.
var CurrentPrices = Prices{
	Name: "us-east-1 list since 2024-11-01", Date: "2024-11",
	SQSPerMillion: 0.40, WRUPerMillion: 0.625, RRUPerMillion: 0.125, LambdaPerMillion: 0.20, GBSecond: 0.0000133334,
	S3PutPerThousand: 0.005, S3GetPerThousand: 0.0004,
}

// Cost is a run's AWS cost in US dollars, by service.
type Cost struct {
	// SQS, DynamoDB, S3 and Lambda are each service's share; Total their
	// sum. S3 is requests only: storage is a few cents per GB-month, and
	// the bodies expire (docs/design.md "Item state").
	SQS      float64 `json:"sqs"`
	DynamoDB float64 `json:"dynamodb"`
	S3       float64 `json:"s3"`
	Lambda   float64 `json:"lambda"`
	Total    float64 `json:"total"`
}

// Cost prices u.
func (u Usage) Cost(p Prices) Cost {
	_, _, inv := u.Requests()
	c := Cost{
		SQS:      float64(u.SQSBilledRequests) * p.SQSPerMillion / 1e6,
		DynamoDB: u.WriteRequestUnits*p.WRUPerMillion/1e6 + u.ReadRequestUnits*p.RRUPerMillion/1e6,
		S3: float64(u.S3Requests[s3Names[s3PutObject]])*p.S3PutPerThousand/1e3 +
			float64(u.S3Requests[s3Names[s3GetObject]])*p.S3GetPerThousand/1e3,
		Lambda: float64(inv)*p.LambdaPerMillion/1e6 + u.LambdaGBSeconds*p.GBSecond,
	}
	c.Total = c.SQS + c.DynamoDB + c.S3 + c.Lambda
	return c
}

// Scale returns c × f.
func (c Cost) Scale(f float64) Cost {
	return Cost{SQS: c.SQS * f, DynamoDB: c.DynamoDB * f, S3: c.S3 * f, Lambda: c.Lambda * f, Total: c.Total * f}
}
