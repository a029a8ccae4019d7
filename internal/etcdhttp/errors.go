package etcdhttp

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"
)

// Field names a [Config] field in an error. The command-line tool maps it
// to the flag (or environment variable) that set it.
type Field int

// The fields an error can name.
const (
	FieldEndpoints Field = iota + 1 // Config.Endpoints
	FieldCACert                     // Config.CACert
	FieldCert                       // Config.Cert
	FieldKey                        // Config.Key
	FieldUser                       // Config.User
	FieldPassword                   // Config.Password
)

// String returns the Go name of the field, for example "Config.CACert".
func (f Field) String() string {
	switch f {
	case FieldEndpoints:
		return "Config.Endpoints"
	case FieldCACert:
		return "Config.CACert"
	case FieldCert:
		return "Config.Cert"
	case FieldKey:
		return "Config.Key"
	case FieldUser:
		return "Config.User"
	case FieldPassword:
		return "Config.Password"
	}
	return "Field(" + strconv.Itoa(int(f)) + ")"
}

// ConfigError reports a [Config] value that [New] rejects: which, the
// value (a file or an endpoint; never a password), and why.
type ConfigError struct {
	Field  Field
	Name   string // the user's name for the field, if the caller set one (for example "-etcd-cacert")
	Value  string // the file or endpoint, or "" (a password is never kept here)
	Reason string // what is wrong, for example "no certificate in the file"
	Err    error  // the cause (reading or parsing the file), or nil
}

// Error names the field (by Name, if set), the value and the reason, for
// example `Config.CACert "ca.pem": holds no PEM certificate`.
func (e *ConfigError) Error() string {
	s := nameOf(e.Field, e.Name)
	if e.Value != "" {
		s += " " + strconv.Quote(e.Value)
	}
	s += ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause, if any.
func (e *ConfigError) Unwrap() error { return e.Err }

// Error is an error answer of the gateway: the gRPC status code and the
// server's message, for example 5 and "etcdserver: requested lease not
// found".
type Error struct {
	HTTPStatus int
	Code       int
	Message    string
}

// Error returns the server's message with the codes.
func (e *Error) Error() string {
	return e.Message + " (gRPC code " + strconv.Itoa(e.Code) + ", HTTP " + strconv.Itoa(e.HTTPStatus) + ")"
}

// gRPC status codes of etcd's answers that this package acts on.
const (
	codeNotFound           = 5  // a missing lease
	CodePermissionDenied   = 7  // the user's roles do not grant the keys
	codeFailedPrecondition = 9  // authentication is not enabled, among others
	codeUnauthenticated    = 16 // a token etcd does not know (expired, or the server restarted)
)

// etcd's messages for the answers whose code alone does not tell them
// apart (go.etcd.io/etcd/api/v3/v3rpc/rpctypes: the etcd client tells its
// errors apart by these texts too).
const (
	msgAuthNotEnabled  = "etcdserver: authentication is not enabled"
	msgAuthOldRevision = "etcdserver: revision of auth store is old"
	msgUserEmpty       = "etcdserver: user name is empty"
)

// PermissionDenied reports whether etcd refused the request because the
// user's roles do not grant the keys it touches.
func (e *Error) PermissionDenied() bool { return e.Code == CodePermissionDenied }

// NeedsUser reports whether etcd refused the request because it came with
// no user: auth is enabled, and the request had no token.
func (e *Error) NeedsUser() bool { return e.Message == msgUserEmpty }

// staleToken reports whether etcd refused a request for its token, before
// applying it: a token it does not know (expired, or lost with a
// restart), one older than a change to its users and roles, or none.
// Authenticating again and sending the request once more is then safe.
func (e *Error) staleToken() bool {
	return e.Code == codeUnauthenticated || e.Message == msgAuthOldRevision || e.Message == msgUserEmpty
}

// AuthError reports that etcd refused to authenticate the user: a wrong
// password, or no such user.
type AuthError struct {
	User string // the user name (the password is never kept in an error)
	Err  *Error // etcd's answer
}

// Error names the user and etcd's answer, for example `authenticating as
// user "alice": etcdserver: authentication failed, invalid user ID or
// password (gRPC code 3, HTTP 400)`.
func (e *AuthError) Error() string {
	return "authenticating as user " + strconv.Quote(e.User) + ": " + e.Err.Error()
}

// Unwrap returns etcd's answer.
func (e *AuthError) Unwrap() error { return e.Err }

// TLSError reports a TLS handshake with an endpoint that failed, and which
// side's credentials it points at: FieldCACert when this client could not
// verify the server's certificate (with Config.CACert, or the system's
// roots without it), FieldCert when the server refused the handshake,
// which a server that asks for client certificates does for a missing one
// or one its CAs did not sign, and FieldEndpoints when the endpoint does
// not speak TLS at all.
type TLSError struct {
	Endpoint string
	Field    Field
	Name     string // the user's name for the field, if the caller set one (for example "-etcd-cacert")
	Err      error  // the error of crypto/tls
}

// Error names the endpoint, what failed, the field it points at (by Name,
// if set) and the cause, for example `TLS handshake with
// https://127.0.0.1:2379: the server's certificate was not verified
// (Config.CACert): tls: failed to verify certificate: x509: certificate
// signed by unknown authority`.
func (e *TLSError) Error() string {
	what := "the handshake failed"
	switch e.Field {
	case FieldCACert:
		what = "the server's certificate was not verified"
	case FieldCert:
		what = "the server refused the client's certificate (or its absence)"
	case FieldEndpoints:
		what = "the endpoint does not speak TLS"
	}
	return "TLS handshake with " + e.Endpoint + ": " + what + " (" + nameOf(e.Field, e.Name) + "): " + e.Err.Error()
}

// nameOf returns name, or the Go name of field if name is empty.
func nameOf(field Field, name string) string {
	if name != "" {
		return name
	}
	return field.String()
}

// Unwrap returns the error of crypto/tls.
func (e *TLSError) Unwrap() error { return e.Err }

// transportError returns err, a failed request to endpoint, as a
// [*TLSError] if a TLS handshake failed, or unchanged.
func (s *Store) transportError(ctx context.Context, endpoint string, err error) error {
	if tlsErr := tlsError(endpoint, err); tlsErr != nil {
		return tlsErr
	}
	// In TLS 1.3 the client finishes its handshake before the server has
	// checked the client's certificate, and writes its request at once: if
	// the server refuses the certificate (or its absence), its alert races
	// with the request, which may then fail as a broken or reset
	// connection, or, when HTTP/2 was agreed, as a connection that "could
	// not be established", which net/http reports without its cause. A
	// handshake of its own, which then waits for the server's first word,
	// tells which it was. It is made for any failure after the connection
	// was dialled (a failed dial or an ended context says enough), and
	// costs at most handshakeWait when the server does accept this client.
	if strings.HasPrefix(endpoint, "https://") && !dialFailed(err) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		if tlsErr := tlsError(endpoint, s.handshake(ctx, strings.TrimPrefix(endpoint, "https://"))); tlsErr != nil {
			return tlsErr
		}
	}
	return err
}

// dialFailed reports whether err is a failure to connect at all.
func dialFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// handshake makes a TLS connection to host with the Store's settings and
// reads from it briefly, and returns the error of either: a server that
// refuses the client's certificate says so in an alert that the read
// returns, while one that accepts it waits for a request, and the read
// times out.
func (s *Store) handshake(ctx context.Context, host string) error {
	ctx, cancel := context.WithTimeout(ctx, handshakeWait)
	defer cancel()
	conn, err := (&tls.Dialer{Config: s.tls}).DialContext(ctx, "tcp", host)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetReadDeadline(time.Now().Add(handshakeWait)); err != nil {
		return err
	}
	_, err = conn.Read(make([]byte, 1))
	return err
}

// handshakeWait bounds the handshake that looks for the server's alert.
const handshakeWait = time.Second

// tlsError returns err as a [*TLSError] if it says a TLS handshake with
// endpoint failed, or nil.
func tlsError(endpoint string, err error) *TLSError {
	var (
		verify *tls.CertificateVerificationError
		header tls.RecordHeaderError
		op     *net.OpError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &verify):
		return &TLSError{Endpoint: endpoint, Field: FieldCACert, Err: verify}
	case errors.As(err, &header):
		return &TLSError{Endpoint: endpoint, Field: FieldEndpoints, Err: header}
	case errors.As(err, &op) && op.Op == "remote error":
		// crypto/tls reports an alert the server sent as a *net.OpError
		// with this Op. A server sends one in the handshake when it
		// refuses what this client offered, which is the client's
		// certificate: the client's own check of the server comes first,
		// above.
		return &TLSError{Endpoint: endpoint, Field: FieldCert, Err: op}
	}
	return nil
}
