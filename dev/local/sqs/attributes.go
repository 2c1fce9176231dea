package sqs

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Limits of SQS standard queues.
const (
	// MaxMessageSize is the largest message (body and attributes) and the
	// largest MaximumMessageSize; it is also the default MaximumMessageSize.
	MaxMessageSize = 1 << 20
	minMessageSize = 1024
	// maxBatchEntries is the most entries of a batch call.
	maxBatchEntries = 10
	maxDelay        = 900 * time.Second
	maxVisibility   = 12 * time.Hour
	maxWait         = 20 * time.Second
	minRetention    = time.Minute
	maxRetention    = 14 * 24 * time.Hour
	maxReceiveCount = 1000
	maxAttributes   = 10
	maxAttrName     = 256
	maxQueueResults = 1000

	defaultVisibility = 30 * time.Second
	defaultRetention  = 4 * 24 * time.Hour
)

// Queue attribute names.
const (
	attrDelaySeconds          = "DelaySeconds"
	attrMaximumMessageSize    = "MaximumMessageSize"
	attrMessageRetention      = "MessageRetentionPeriod"
	attrPolicy                = "Policy"
	attrReceiveWait           = "ReceiveMessageWaitTimeSeconds"
	attrVisibilityTimeout     = "VisibilityTimeout"
	attrRedrivePolicy         = "RedrivePolicy"
	attrRedriveAllowPolicy    = "RedriveAllowPolicy"
	attrKmsMasterKeyID        = "KmsMasterKeyId"
	attrKmsDataKeyReuse       = "KmsDataKeyReusePeriodSeconds"
	attrSqsManagedSse         = "SqsManagedSseEnabled"
	attrFifoQueue             = "FifoQueue"
	attrContentDedup          = "ContentBasedDeduplication"
	attrApproxMessages        = "ApproximateNumberOfMessages"
	attrApproxNotVisible      = "ApproximateNumberOfMessagesNotVisible"
	attrApproxDelayed         = "ApproximateNumberOfMessagesDelayed"
	attrCreatedTimestamp      = "CreatedTimestamp"
	attrLastModifiedTimestamp = "LastModifiedTimestamp"
	attrQueueArn              = "QueueArn"
)

// readOnlyAttributes are reported by GetQueueAttributes and refused by
// CreateQueue and SetQueueAttributes.
var readOnlyAttributes = []string{attrApproxMessages, attrApproxNotVisible, attrApproxDelayed,
	attrCreatedTimestamp, attrLastModifiedTimestamp, attrQueueArn}

// settableAttributes are the attributes of a standard queue that
// CreateQueue and SetQueueAttributes accept.
var settableAttributes = []string{attrDelaySeconds, attrMaximumMessageSize, attrMessageRetention, attrPolicy,
	attrReceiveWait, attrVisibilityTimeout, attrRedrivePolicy, attrRedriveAllowPolicy, attrKmsMasterKeyID,
	attrKmsDataKeyReuse, attrSqsManagedSse}

// config is a queue's settable attributes, parsed.
type config struct {
	delay, visibility, wait, retention time.Duration
	maxSize                            int
	redrive                            *redrivePolicy
	// raw holds every settable attribute as GetQueueAttributes reports it.
	raw map[string]string
}

// redrivePolicy is a queue's RedrivePolicy.
type redrivePolicy struct {
	TargetARN       string `json:"deadLetterTargetArn"`
	MaxReceiveCount int    `json:"maxReceiveCount"`
}

func defaultConfig() config {
	return config{visibility: defaultVisibility, retention: defaultRetention, maxSize: MaxMessageSize,
		raw: map[string]string{
			attrDelaySeconds: "0", attrMaximumMessageSize: strconv.Itoa(MaxMessageSize),
			attrMessageRetention: strconv.Itoa(int(defaultRetention / time.Second)), attrReceiveWait: "0",
			attrVisibilityTimeout: strconv.Itoa(int(defaultVisibility / time.Second)), attrSqsManagedSse: "true",
		}}
}

// apply validates attrs and sets them on c. dlqExists tells whether a
// RedrivePolicy's target exists. An unknown or read-only name is
// InvalidAttributeName; a bad value InvalidAttributeValue (or
// InvalidParameterValue for a RedrivePolicy, as SQS answers).
func (c *config) apply(attrs map[string]string, dlqExists func(arn string) bool) *apiError {
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		v := attrs[name]
		switch name {
		case attrFifoQueue:
			if v == "true" {
				return newError(errUnsupportedOperation, "FIFO queues are not emulated by the local SQS")
			}
			if v != "false" {
				return newError(errInvalidAttributeValue, "Invalid value for the parameter %s.", name)
			}
			continue
		case attrContentDedup:
			return newError(errInvalidAttributeName, "You can specify the %s only when FifoQueue is set to true.", name)
		}
		if !slices.Contains(settableAttributes, name) {
			return newError(errInvalidAttributeName, "Unknown Attribute %s.", name)
		}
		bad := func() *apiError {
			return newError(errInvalidAttributeValue, "Invalid value for the parameter %s.", name)
		}
		seconds := func(lo, hi time.Duration) (time.Duration, bool) {
			n, err := strconv.Atoi(v)
			d := time.Duration(n) * time.Second
			return d, err == nil && d >= lo && d <= hi
		}
		var ok bool
		switch name {
		case attrDelaySeconds:
			c.delay, ok = seconds(0, maxDelay)
		case attrVisibilityTimeout:
			c.visibility, ok = seconds(0, maxVisibility)
		case attrReceiveWait:
			c.wait, ok = seconds(0, maxWait)
		case attrMessageRetention:
			c.retention, ok = seconds(minRetention, maxRetention)
		case attrKmsDataKeyReuse:
			_, ok = seconds(time.Minute, 24*time.Hour)
		case attrMaximumMessageSize:
			n, err := strconv.Atoi(v)
			c.maxSize, ok = n, err == nil && n >= minMessageSize && n <= MaxMessageSize
		case attrSqsManagedSse:
			ok = v == "true" || v == "false"
		case attrPolicy, attrRedriveAllowPolicy:
			ok = v == "" || json.Valid([]byte(v))
		case attrKmsMasterKeyID:
			ok = true
		case attrRedrivePolicy:
			if v == "" {
				c.redrive, ok = nil, true
				break
			}
			p, err := parseRedrivePolicy(v, dlqExists)
			if err != nil {
				return err
			}
			c.redrive, ok = p, true
		}
		if !ok {
			return bad()
		}
		if v == "" && (name == attrRedrivePolicy || name == attrPolicy || name == attrRedriveAllowPolicy) {
			delete(c.raw, name)
			continue
		}
		c.raw[name] = v
	}
	return nil
}

// parseRedrivePolicy reads a RedrivePolicy: its JSON, with maxReceiveCount
// a number or a numeric string (CloudFormation passes either), and a
// target that exists.
func parseRedrivePolicy(v string, dlqExists func(string) bool) (*redrivePolicy, *apiError) {
	var raw struct {
		TargetARN       string          `json:"deadLetterTargetArn"`
		MaxReceiveCount json.RawMessage `json:"maxReceiveCount"`
	}
	invalid := func(reason string) *apiError {
		return newError(errInvalidParameterValue, "Value %s for parameter RedrivePolicy is invalid. Reason: %s", v, reason)
	}
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		return nil, invalid("Redrive policy is not a valid JSON map.")
	}
	if raw.TargetARN == "" || len(raw.MaxReceiveCount) == 0 {
		return nil, invalid("Redrive policy does not contain mandatory attribute: deadLetterTargetArn, maxReceiveCount.")
	}
	n, err := strconv.Atoi(strings.Trim(string(raw.MaxReceiveCount), `"`))
	if err != nil || n < 1 || n > maxReceiveCount {
		return nil, invalid(fmt.Sprintf("Invalid value for maxReceiveCount: %s, valid values are from 1 to %d both inclusive.",
			raw.MaxReceiveCount, maxReceiveCount))
	}
	if dlqExists != nil && !dlqExists(raw.TargetARN) {
		return nil, invalid("Dead letter target does not exist.")
	}
	return &redrivePolicy{TargetARN: raw.TargetARN, MaxReceiveCount: n}, nil
}

// differs names the first attribute of attrs whose value differs from c's:
// CreateQueue of an existing name succeeds only when it names no
// different value.
func (c *config) differs(attrs map[string]string) (string, bool) {
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		want := attrs[name]
		if name == attrFifoQueue && want == "false" {
			continue
		}
		have, ok := c.raw[name]
		if name == attrRedrivePolicy && ok {
			p, err := parseRedrivePolicy(want, nil)
			if err == nil && c.redrive != nil && *p == *c.redrive {
				continue
			}
		}
		if !ok || have != want {
			return name, true
		}
	}
	return "", false
}

// attrValue is a message attribute as SQS carries it.
type attrValue struct {
	DataType         string   `json:"DataType"`
	StringValue      *string  `json:"StringValue,omitempty"`
	BinaryValue      []byte   `json:"BinaryValue,omitempty"`
	StringListValues []string `json:"StringListValues,omitempty"`
	BinaryListValues [][]byte `json:"BinaryListValues,omitempty"`
}

var attrNameRE = regexp.MustCompile(`^[A-Za-z0-9_.\-]+$`)

// validateAttributes checks message (or, with system set, message system)
// attributes as SendMessage does, and returns their size, which counts
// toward the message's.
func validateAttributes(attrs map[string]attrValue, system bool) (int, *apiError) {
	kind := "user"
	if system {
		kind = "system"
	}
	if len(attrs) > maxAttributes {
		return 0, newError(errInvalidParameterValue, "Number of message attributes [%d] exceeds the allowed maximum [%d].",
			len(attrs), maxAttributes)
	}
	size := 0
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[name]
		lower := strings.ToLower(name)
		switch {
		case system && name != "AWSTraceHeader":
			return 0, newError(errInvalidParameterValue, "Message system attribute name '%s' is invalid.", name)
		case name == "" || len(name) > maxAttrName || !attrNameRE.MatchString(name) ||
			strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, ".."):
			return 0, newError(errInvalidParameterValue, "Message (%s) attribute name '%s' is invalid.", kind, name)
		case !system && (strings.HasPrefix(lower, "aws.") || strings.HasPrefix(lower, "amazon.")):
			return 0, newError(errInvalidParameterValue,
				"Message (%s) attribute name '%s' is invalid. Reason: the names AWS. and Amazon. (in any casing) are reserved.", kind, name)
		}
		base, _, _ := strings.Cut(a.DataType, ".")
		if a.DataType == "" {
			return 0, newError(errInvalidParameterValue, "The message (%s) attribute '%s' must contain a non-empty attribute type.", kind, name)
		}
		if base != "String" && base != "Number" && base != "Binary" || len(a.DataType) > maxAttrName ||
			strings.HasSuffix(a.DataType, ".") || system && a.DataType != "String" {
			return 0, newError(errInvalidParameterValue,
				"The type of message (%s) attribute '%s' is invalid. You must use only the following supported type prefixes: Binary, Number, String.",
				kind, name)
		}
		if len(a.StringListValues) > 0 || len(a.BinaryListValues) > 0 {
			return 0, newError(errInvalidParameterValue, "Message (%s) attribute '%s': list values are not supported.", kind, name)
		}
		value := 0
		switch base {
		case "Binary":
			if len(a.BinaryValue) == 0 {
				return 0, newError(errInvalidParameterValue,
					"The message (%s) attribute '%s' with type 'Binary' must use field 'Binary'.", kind, name)
			}
			value = len(a.BinaryValue)
		default:
			if a.StringValue == nil || *a.StringValue == "" {
				return 0, newError(errInvalidParameterValue,
					"The message (%s) attribute '%s' must contain a non-empty message attribute value for message attribute type '%s'.",
					kind, name, base)
			}
			if base == "Number" && !validNumber(*a.StringValue) {
				return 0, newError(errInvalidParameterValue, "Value %s for parameter MessageAttributeValue is invalid. Reason: "+
					"Can't parse '%s' as a number for message (%s) attribute '%s'.", *a.StringValue, *a.StringValue, kind, name)
			}
			if invalidText(*a.StringValue) {
				return 0, newError(errInvalidParameterValue, "Message (%s) attribute '%s' contains characters outside the allowed set.", kind, name)
			}
			value = len(*a.StringValue)
		}
		size += len(name) + len(a.DataType) + value
	}
	return size, nil
}

// validNumber: SQS numbers have up to 38 significant digits, from -10^128
// to 10^126.
func validNumber(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > 1e126 {
		return false
	}
	digits := 0
	for _, r := range strings.TrimLeft(strings.SplitN(strings.ToLower(s), "e", 2)[0], "+-0.") {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return digits <= 38
}

// invalidText reports characters SQS refuses in a body or a string
// attribute: anything outside #x9 | #xA | #xD | #x20–#xD7FF | #xE000–#xFFFD
// | #x10000–#x10FFFF.
func invalidText(s string) bool {
	for _, r := range s {
		switch {
		case r == 0x9 || r == 0xA || r == 0xD:
		case r >= 0x20 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		default:
			return true
		}
	}
	return false
}

// md5OfAttributes is the digest SQS returns as MD5OfMessageAttributes (and
// MD5OfMessageSystemAttributes): over the attributes sorted by name, each
// its name, its data type, a transport byte (1 for String and Number, 2
// for Binary) and its value, every field but the byte preceded by its
// length as a 4-byte big-endian integer. "" for no attributes.
func md5OfAttributes(attrs map[string]attrValue) string {
	if len(attrs) == 0 {
		return ""
	}
	h := md5.New()
	field := func(b []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[name]
		field([]byte(name))
		field([]byte(a.DataType))
		if strings.HasPrefix(a.DataType, "Binary") {
			h.Write([]byte{2})
			field(a.BinaryValue)
			continue
		}
		h.Write([]byte{1})
		field([]byte(derefString(a.StringValue)))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// selectAttributes returns the attributes of attrs that names asks for:
// "All" or ".*" for every one, a name, or a prefix ending in ".*".
func selectAttributes(attrs map[string]attrValue, names []string) map[string]attrValue {
	if len(attrs) == 0 || len(names) == 0 {
		return nil
	}
	out := map[string]attrValue{}
	for name, v := range attrs {
		for _, want := range names {
			prefix, wild := strings.CutSuffix(want, ".*")
			if want == "All" || want == ".*" || want == name || wild && strings.HasPrefix(name, prefix+".") {
				out[name] = v
				break
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
