package etcdhttp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The Store itself is tested against a real etcd server, with TLS and auth,
// by the tests of the scru64/etcdnode module; these pin what New checks
// before any request.
func TestNewChecksTheEndpoint(t *testing.T) {
	for _, bad := range []string{"", "ftp://host", "http://", "://x", "host:port:x/%"} {
		_, err := New(Config{Endpoints: []string{"http://127.0.0.1:2379", bad}})
		if ce := (*ConfigError)(nil); !errors.As(err, &ce) || ce.Field != FieldEndpoints || ce.Value != bad {
			t.Errorf("New accepted %q, or its error %v does not name it", bad, err)
		}
	}
	if _, err := New(Config{}); err == nil {
		t.Error("New accepted no endpoint")
	}
	s, err := New(Config{Endpoints: []string{"https://etcd.example:2379/some/path", "http://[::1]:2379", "10.0.0.1:2379"}})
	want := []string{"https://etcd.example:2379", "http://[::1]:2379", "http://10.0.0.1:2379"}
	if err != nil || len(s.endpoints) != len(want) {
		t.Fatalf("New = %+v, %v", s, err)
	}
	for i := range want {
		if s.endpoints[i] != want[i] {
			t.Errorf("endpoint %d = %q, want %q", i, s.endpoints[i], want[i])
		}
	}
}

// writeFile writes data to a new file in the test's directory and returns
// its path.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNewChecksTheTLSFiles(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pem")
	notPEM := writeFile(t, "not.pem", "not a certificate\n")
	for _, tc := range []struct {
		name  string
		cfg   Config
		field Field
		value string
	}{
		{"CA missing", Config{CACert: missing}, FieldCACert, missing},
		{"CA not PEM", Config{CACert: notPEM}, FieldCACert, notPEM},
		{"cert without key", Config{Cert: notPEM}, FieldKey, ""},
		{"key without cert", Config{Key: notPEM}, FieldCert, ""},
		{"cert missing", Config{Cert: missing, Key: notPEM}, FieldCert, missing},
		{"key missing", Config{Cert: notPEM, Key: missing}, FieldKey, missing},
		{"cert not PEM", Config{Cert: notPEM, Key: notPEM}, FieldCert, notPEM},
	} {
		tc.cfg.Endpoints = []string{"127.0.0.1:2379"}
		_, err := New(tc.cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field || ce.Value != tc.value {
			t.Errorf("%s: New = %v, want a *ConfigError for %v %q", tc.name, err, tc.field, tc.value)
		}
	}
}

func TestNewRefusesTLSOverPlainHTTP(t *testing.T) {
	// A CA file New can read: any certificate will do, since New makes no
	// request.
	ca := writeFile(t, "ca.pem", selfSigned(t))
	_, err := New(Config{Endpoints: []string{"http://127.0.0.1:2379"}, CACert: ca})
	if ce := (*ConfigError)(nil); !errors.As(err, &ce) || ce.Field != FieldEndpoints || !strings.Contains(ce.Reason, "plain HTTP") {
		t.Fatalf("New = %v, want a *ConfigError saying the endpoint is plain HTTP", err)
	}
	s, err := New(Config{Endpoints: []string{"127.0.0.1:2379"}, CACert: ca})
	if err != nil || s.endpoints[0] != "https://127.0.0.1:2379" {
		t.Fatalf("an endpoint without a scheme and a CA: %v, %v; want https", s, err)
	}
}

func TestNewKeepsNoPassword(t *testing.T) {
	const password = "s3cret-password"
	_, err := New(Config{Endpoints: []string{"127.0.0.1:2379"}, Password: password})
	if ce := (*ConfigError)(nil); !errors.As(err, &ce) || ce.Field != FieldPassword || strings.Contains(err.Error(), password) {
		t.Fatalf("a password without a user: %v", err)
	}
	e := &AuthError{User: "alice", Err: &Error{HTTPStatus: 400, Code: 3, Message: "etcdserver: authentication failed, invalid user ID or password"}}
	if got := e.Error(); got != `authenticating as user "alice": etcdserver: authentication failed, invalid user ID or password (gRPC code 3, HTTP 400)` {
		t.Fatalf("AuthError = %q", got)
	}
}

// selfSigned returns a new self-signed certificate in PEM.
func selfSigned(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestDecodeReadsBothErrorForms: a unary endpoint's error answer and a
// streaming one's (the keep-alive's) both give etcd's code and message,
// which decide whether a token is renewed.
func TestDecodeReadsBothErrorForms(t *testing.T) {
	for _, body := range []string{
		`{"error":"etcdserver: invalid auth token","code":16,"message":"etcdserver: invalid auth token"}`,
		`{"error":{"code":16,"message":"etcdserver: invalid auth token","details":[]}}`,
	} {
		resp := &http.Response{StatusCode: 401, Status: "401 Unauthorized", Body: io.NopCloser(strings.NewReader(body))}
		err := decode(resp, "/v3/lease/keepalive", &struct{}{})
		var e *Error
		if !errors.As(err, &e) || e.Code != 16 || e.Message != "etcdserver: invalid auth token" || !e.staleToken() {
			t.Errorf("%s: %#v", body, err)
		}
	}
	resp := &http.Response{StatusCode: 502, Status: "502 Bad Gateway", Body: io.NopCloser(strings.NewReader("<html>"))}
	if err := decode(resp, "/v3/kv/txn", &struct{}{}); err == nil || err.Error() != "502 Bad Gateway (gRPC code 0, HTTP 502)" {
		t.Errorf("a body that is not JSON: %v", err)
	}
}
