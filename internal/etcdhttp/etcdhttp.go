// Package etcdhttp is a nodelease.Store over etcd's JSON gateway (the
// grpc-gateway every etcd v3 server serves on its client URLs under /v3/),
// with nothing but the standard library, so that the command-line tool can
// lease SCRU64 node IDs without the etcd client in the root module. It
// speaks TLS (a private CA, a client certificate) and etcd's
// authentication (a user and password) as etcdctl does, see [Config].
//
// Its errors carry no package prefix: its one user, the command-line tool,
// puts its own first, and words what it says about a [*ConfigError],
// [*TLSError] or [*AuthError] from their fields, naming its own flags.
//
// Requests are POSTs of JSON: keys and values in base64, 64-bit integers as
// decimal strings (the gateway's protobuf JSON mapping), and fields that
// hold their zero value left out of responses. The module
// github.com/fastid/scru128/scru64/etcdnode tests this [Store] against a real
// etcd server with the same protocol tests as its clientv3 Store.
package etcdhttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/fastid/scru128/internal/nodelease"
)

// Store talks to the endpoints of one etcd cluster. It is safe for
// concurrent use.
type Store struct {
	endpoints []string     // scheme://host:port, no trailing slash
	current   atomic.Int32 // index of the endpoint that answered last
	client    *http.Client
	tls       *tls.Config // the client's TLS settings; nil for the defaults
	auth      *auth       // nil without a user
}

var _ nodelease.Store = (*Store)(nil)

// post sends body as JSON to path, with the auth token if the Store has a
// user, and decodes the first JSON value of the answer into out. A token
// that etcd no longer takes (a simple token expires after five minutes
// unused, and with a restart of the server) is renewed once and the
// request sent again: etcd refused it before applying it.
func (s *Store) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	if s.auth == nil {
		return s.send(ctx, path, b, "", out)
	}
	token, err := s.auth.token(ctx, s, "")
	if err != nil {
		return err
	}
	err = s.send(ctx, path, b, token, out)
	if e := (*Error)(nil); errors.As(err, &e) && e.staleToken() {
		if token, err = s.auth.token(ctx, s, token); err != nil {
			return err
		}
		err = s.send(ctx, path, b, token, out)
	}
	return err
}

// send posts b to path with token (if not empty) and decodes the answer
// into out, trying each endpoint once, from the one that answered last,
// until one answers.
func (s *Store) send(ctx context.Context, path string, b []byte, token string, out any) error {
	first := int(s.current.Load())
	var errs []error
	for i := range s.endpoints {
		at := (first + i) % len(s.endpoints)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoints[at]+path, bytes.NewReader(b))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			// The gateway passes the header on as the request's
			// "authorization" metadata, which etcd takes as the token.
			req.Header.Set("Authorization", token)
		}
		resp, err := s.client.Do(req)
		if err != nil {
			errs = append(errs, s.transportError(ctx, s.endpoints[at], err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		s.current.Store(int32(at))
		defer resp.Body.Close()
		if err := decode(resp, path, out); err != nil {
			return err
		}
		if st, ok := out.(streamed); ok {
			if e := st.streamError(); e != nil {
				return e // as if it had come as an HTTP error: a stale token is renewed
			}
		}
		return nil
	}
	return errors.Join(errs...)
}

// streamed is the answer of a streaming endpoint, whose error comes in
// the body of an HTTP 200.
type streamed interface{ streamError() *Error }

// decode reads an answer of the gateway into out, or its error.
func decode(resp *http.Response, path string, out any) error {
	dec := json.NewDecoder(io.LimitReader(resp.Body, 64<<20))
	if resp.StatusCode != http.StatusOK {
		// A unary endpoint answers {"code", "message", "error"}; a
		// streaming one (the keep-alive) {"error": {"code", "message"}}.
		var e struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Error   json.RawMessage `json:"error"`
		}
		if dec.Decode(&e) == nil && e.Message == "" && len(e.Error) > 0 {
			var text string
			var streamed struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			switch {
			case json.Unmarshal(e.Error, &text) == nil:
				e.Message = text
			case json.Unmarshal(e.Error, &streamed) == nil:
				e.Code, e.Message = streamed.Code, streamed.Message
			}
		}
		if e.Message == "" {
			e.Message = resp.Status
		}
		return &Error{HTTPStatus: resp.StatusCode, Code: e.Code, Message: e.Message}
	}
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("decoding the answer to %s: %w", path, err)
	}
	return nil
}

// int64s are decimal strings in the gateway's JSON.
type int64s string

func (v int64s) value() (int64, error) {
	if v == "" {
		return 0, nil
	}
	return strconv.ParseInt(string(v), 10, 64)
}

func i64(v int64) int64s { return int64s(strconv.FormatInt(v, 10)) }

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func unb64(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	return string(b), err
}

// uint64s are unsigned 64-bit integers as decimal strings.
type uint64s string

// responseHeader is etcdserverpb.ResponseHeader as JSON.
type responseHeader struct {
	ClusterID uint64s `json:"cluster_id"`
	Revision  int64s  `json:"revision"`
}

// header returns h as a nodelease.Header.
func (h *responseHeader) header() (nodelease.Header, error) {
	var cluster uint64
	if h.ClusterID != "" {
		var err error
		if cluster, err = strconv.ParseUint(string(h.ClusterID), 10, 64); err != nil {
			return nodelease.Header{}, fmt.Errorf("cluster_id %q: %w", h.ClusterID, err)
		}
	}
	rev, err := h.Revision.value()
	if err != nil {
		return nodelease.Header{}, fmt.Errorf("revision %q: %w", h.Revision, err)
	}
	return nodelease.Header{ClusterID: cluster, Revision: rev}, nil
}

// keyValue is mvccpb.KeyValue as JSON.
type keyValue struct {
	Key            string `json:"key"`
	Value          string `json:"value"`
	CreateRevision int64s `json:"create_revision"`
	ModRevision    int64s `json:"mod_revision"`
	Lease          int64s `json:"lease"`
}

type rangeResponse struct {
	Kvs []keyValue `json:"kvs"`
}

// first returns r's first key-value pair, or the zero one if there is none.
func (r *rangeResponse) first() keyValue {
	if r == nil || len(r.Kvs) == 0 {
		return keyValue{}
	}
	return r.Kvs[0]
}

// firstValue returns the decoded value of r's first key, whether there was
// one, and a decoding error.
func (r *rangeResponse) firstValue() (string, bool, error) {
	if r == nil || len(r.Kvs) == 0 {
		return "", false, nil
	}
	v, err := unb64(r.Kvs[0].Value)
	return v, true, err
}

// record returns r's first key as a continuity record.
func (r *rangeResponse) record() (nodelease.Record, error) {
	value, _, err := r.firstValue()
	if err != nil {
		return nodelease.Record{}, err
	}
	rev, err := r.first().ModRevision.value()
	return nodelease.Record{Value: value, ModRevision: rev}, err
}

type compare struct {
	Key            string `json:"key"`
	Result         string `json:"result"`
	Target         string `json:"target"`
	Value          string `json:"value,omitempty"`
	CreateRevision int64s `json:"create_revision,omitempty"`
	ModRevision    int64s `json:"mod_revision,omitempty"`
	Lease          int64s `json:"lease,omitempty"`
}

type requestOp struct {
	Put    *putRequest    `json:"request_put,omitempty"`
	Range  *rangeRequest  `json:"request_range,omitempty"`
	Delete *deleteRequest `json:"request_delete_range,omitempty"`
}

type putRequest struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Lease int64s `json:"lease,omitempty"`
}

type rangeRequest struct {
	Key      string `json:"key"`
	RangeEnd string `json:"range_end,omitempty"`
	KeysOnly bool   `json:"keys_only,omitempty"`
	Limit    int64s `json:"limit,omitempty"`
}

type deleteRequest struct {
	Key string `json:"key"`
}

type txnRequest struct {
	Compare []compare   `json:"compare"`
	Success []requestOp `json:"success"`
	Failure []requestOp `json:"failure,omitempty"`
}

type txnResponse struct {
	Header    responseHeader `json:"header"`
	Succeeded bool           `json:"succeeded"`
	Responses []struct {
		Range *rangeResponse `json:"response_range"`
	} `json:"responses"`
}

// txn runs a transaction and returns its answer and the answer's header.
func (s *Store) txn(ctx context.Context, req txnRequest) (*txnResponse, nodelease.Header, error) {
	var resp txnResponse
	if err := s.post(ctx, "/v3/kv/txn", req, &resp); err != nil {
		return nil, nodelease.Header{}, err
	}
	h, err := resp.Header.header()
	if err != nil {
		return nil, nodelease.Header{}, err
	}
	return &resp, h, nil
}

// rangeAt returns the range response of the i-th operation, or an error
// if the answer does not have one.
func (r *txnResponse) rangeAt(i int) (*rangeResponse, error) {
	if i >= len(r.Responses) {
		return nil, fmt.Errorf("transaction answer has %d responses, expected at least %d", len(r.Responses), i+1)
	}
	if r.Responses[i].Range == nil {
		return &rangeResponse{}, nil
	}
	return r.Responses[i].Range, nil
}

// Grant implements nodelease.Store: POST /v3/lease/grant.
func (s *Store) Grant(ctx context.Context, ttl int64) (int64, int64, error) {
	var resp struct {
		ID    int64s `json:"ID"`
		TTL   int64s `json:"TTL"`
		Error string `json:"error"`
	}
	if err := s.post(ctx, "/v3/lease/grant", map[string]int64s{"TTL": i64(ttl)}, &resp); err != nil {
		return 0, 0, err
	}
	if resp.Error != "" {
		return 0, 0, &Error{HTTPStatus: http.StatusOK, Message: resp.Error}
	}
	id, err1 := resp.ID.value()
	granted, err2 := resp.TTL.value()
	if err := errors.Join(err1, err2); err != nil || id == 0 {
		return 0, 0, fmt.Errorf("lease grant answered ID %q, TTL %q: %v", resp.ID, resp.TTL, err)
	}
	return id, granted, nil
}

// KeepAliveOnce implements nodelease.Store: one request on the
// /v3/lease/keepalive stream, whose answer is a stream of {"result": ...}
// objects; the first is the renewal.
func (s *Store) KeepAliveOnce(ctx context.Context, lease int64) (int64, nodelease.Header, error) {
	var resp keepAliveAnswer
	err := s.post(ctx, "/v3/lease/keepalive", map[string]int64s{"ID": i64(lease)}, &resp)
	var e *Error
	if errors.As(err, &e) && e.Code == codeNotFound {
		return 0, nodelease.Header{}, nil
	}
	if err != nil {
		return 0, nodelease.Header{}, err
	}
	h, err := resp.Result.Header.header()
	if err != nil {
		return 0, nodelease.Header{}, err
	}
	ttl, err := resp.Result.TTL.value() // absent (0) when the lease is gone
	return ttl, h, err
}

// keepAliveAnswer is the first object of the keep-alive stream: a
// renewal, or an error, which a streaming endpoint sends in the body of an
// HTTP 200.
type keepAliveAnswer struct {
	Result struct {
		Header responseHeader `json:"header"`
		TTL    int64s         `json:"TTL"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (a *keepAliveAnswer) streamError() *Error {
	if a.Error == nil {
		return nil
	}
	return &Error{HTTPStatus: http.StatusOK, Code: a.Error.Code, Message: a.Error.Message}
}

// Revoke implements nodelease.Store: POST /v3/lease/revoke; a lease that
// does not exist is not an error.
func (s *Store) Revoke(ctx context.Context, lease int64) error {
	var resp struct{}
	err := s.post(ctx, "/v3/lease/revoke", map[string]int64s{"ID": i64(lease)}, &resp)
	var e *Error
	if errors.As(err, &e) && e.Code == codeNotFound {
		return nil
	}
	return err
}

// PutIfAbsent implements nodelease.Store with one transaction.
func (s *Store) PutIfAbsent(ctx context.Context, key, value string) (string, nodelease.Header, error) {
	resp, h, err := s.txn(ctx, txnRequest{
		Compare: []compare{{Key: b64(key), Result: "EQUAL", Target: "CREATE", CreateRevision: "0"}},
		Success: []requestOp{{Put: &putRequest{Key: b64(key), Value: b64(value)}}},
		Failure: []requestOp{{Range: &rangeRequest{Key: b64(key)}}},
	})
	if err != nil {
		return "", h, err
	}
	if resp.Succeeded {
		return value, h, nil
	}
	r, err := resp.rangeAt(0)
	if err != nil {
		return "", h, err
	}
	current, _, err := r.firstValue()
	return current, h, err
}

// Acquire implements nodelease.Store with the one transaction its doc
// states.
func (s *Store) Acquire(ctx context.Context, req nodelease.AcquireRequest) (nodelease.AcquireResult, error) {
	resp, h, err := s.txn(ctx, txnRequest{
		Compare: []compare{
			{Key: b64(req.RealmKey), Result: "EQUAL", Target: "VALUE", Value: b64(req.RealmValue)},
			{Key: b64(req.HolderKey), Result: "EQUAL", Target: "CREATE", CreateRevision: "0"},
		},
		Success: []requestOp{
			{Put: &putRequest{Key: b64(req.HolderKey), Value: b64(req.HolderValue), Lease: i64(req.Lease)}},
			{Range: &rangeRequest{Key: b64(req.RecordKey)}},
			{Range: &rangeRequest{Key: b64(req.RealmKey), KeysOnly: true}},
		},
		Failure: []requestOp{{Range: &rangeRequest{Key: b64(req.RealmKey)}}},
	})
	if err != nil {
		return nodelease.AcquireResult{}, err
	}
	if !resp.Succeeded {
		r, err := resp.rangeAt(0)
		if err != nil {
			return nodelease.AcquireResult{}, err
		}
		realm, _, err := r.firstValue()
		return nodelease.AcquireResult{Header: h, RealmValue: realm}, err
	}
	recordRange, err1 := resp.rangeAt(1)
	realmRange, err2 := resp.rangeAt(2)
	if err := errors.Join(err1, err2); err != nil {
		return nodelease.AcquireResult{}, err
	}
	record, err1 := recordRange.record()
	realmRev, err2 := realmRange.first().CreateRevision.value()
	return nodelease.AcquireResult{Header: h, Acquired: true, Record: record, RealmCreateRevision: realmRev},
		errors.Join(err1, err2)
}

// WriteRecord implements nodelease.Store with the one fenced transaction
// its doc states.
func (s *Store) WriteRecord(ctx context.Context, w nodelease.RecordWrite) (nodelease.RecordResult, error) {
	write := requestOp{Put: &putRequest{Key: b64(w.RecordKey), Value: b64(w.Value)}}
	if w.Delete {
		write = requestOp{Delete: &deleteRequest{Key: b64(w.RecordKey)}}
	}
	resp, h, err := s.txn(ctx, txnRequest{
		Compare: []compare{
			{Key: b64(w.HolderKey), Result: "EQUAL", Target: "LEASE", Lease: i64(w.Lease)},
			{Key: b64(w.RecordKey), Result: "EQUAL", Target: "MOD", ModRevision: i64(w.ModRevision)},
			{Key: b64(w.RealmKey), Result: "EQUAL", Target: "CREATE", CreateRevision: i64(w.RealmCreateRevision)},
		},
		Success: []requestOp{write},
		Failure: []requestOp{
			{Range: &rangeRequest{Key: b64(w.RecordKey)}},
			// Not keys_only: etcd's fast keys-only range leaves out the lease.
			{Range: &rangeRequest{Key: b64(w.HolderKey)}},
			{Range: &rangeRequest{Key: b64(w.RealmKey), KeysOnly: true}},
		},
	})
	if err != nil {
		return nodelease.RecordResult{}, err
	}
	if resp.Succeeded {
		return nodelease.RecordResult{Header: h, Written: true}, nil
	}
	recordRange, err1 := resp.rangeAt(0)
	holderRange, err2 := resp.rangeAt(1)
	realmRange, err3 := resp.rangeAt(2)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nodelease.RecordResult{}, err
	}
	record, err1 := recordRange.record()
	holderLease, err2 := holderRange.first().Lease.value()
	realmRev, err3 := realmRange.first().CreateRevision.value()
	return nodelease.RecordResult{Header: h, Record: record, HolderLease: holderLease, RealmCreateRevision: realmRev},
		errors.Join(err1, err2, err3)
}

// Keys implements nodelease.Store: POST /v3/kv/range with keys_only.
func (s *Store) Keys(ctx context.Context, from, end string, limit int64) ([]string, error) {
	var resp rangeResponse
	err := s.post(ctx, "/v3/kv/range", rangeRequest{Key: b64(from), RangeEnd: b64(end), KeysOnly: true, Limit: i64(limit)}, &resp)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		k, err := unb64(kv.Key)
		if err != nil {
			return nil, fmt.Errorf("key %q is not base64: %w", kv.Key, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}
