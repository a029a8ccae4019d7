package etcdhttp

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// Config says how a [Store] reaches an etcd cluster and as whom, with the
// settings etcdctl has: --endpoints, --cacert, --cert, --key and --user.
type Config struct {
	// Endpoints are the client URLs of the cluster's members:
	// https://10.0.0.1:2379, http://127.0.0.1:2379, or, as etcdctl takes
	// them, 10.0.0.1:2379, which is HTTPS if CACert or Cert is set and
	// plain HTTP otherwise.
	Endpoints []string
	// CACert is a PEM file of the certificates of the CAs that sign the
	// servers' certificates; empty, the system's roots are used.
	CACert string
	// Cert and Key are the PEM files of a client certificate and its
	// private key, for a cluster that asks for one (etcd's
	// --client-cert-auth). Both or neither.
	Cert, Key string
	// User and Password authenticate with etcd's auth: the Store gets a
	// token for them before its first request, and a new one when etcd no
	// longer takes it. Empty User: no authentication. Unlike etcdctl over
	// gRPC, a request through the gateway never takes the client
	// certificate's common name as the user (etcd ignores it there on
	// purpose), so a cluster with auth enabled needs User here.
	User, Password string
}

// New returns a [Store] for cfg. A request goes to the endpoint that
// answered last and, if it cannot be reached, to the next one.
//
// It returns a [*ConfigError] for a missing endpoint or one that is not an
// http or https URL with a host, a plain http:// endpoint with CACert or
// Cert, a CA or certificate file that cannot be read or holds no
// certificate, a certificate without its key or the reverse, or a
// password without a user. It reads the files once, here; it sends no
// request.
//
// Moving on to the next endpoint after a transport error may send a
// request twice, once to a server that applied it without answering. Each
// request of the protocol tolerates that: keep-alives, revocations and
// listings are idempotent; a second copy of a record write fails its
// fence (the record's mod revision has moved), and the node finds its
// first copy applied at its next write; a repeated acquire transaction
// finds its own holder key and reports the node ID taken, so Acquire takes
// another and the first goes free with the lease; a repeated grant leaves
// an unused lease that expires after its TTL.
func New(cfg Config) (*Store, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, &ConfigError{Field: FieldEndpoints, Reason: "no endpoint"}
	}
	withTLS := cfg.CACert != "" || cfg.Cert != "" || cfg.Key != ""
	s := &Store{client: http.DefaultClient}
	for _, e := range cfg.Endpoints {
		withScheme := e
		if !strings.Contains(e, "://") {
			withScheme = "http://" + e
			if withTLS {
				withScheme = "https://" + e
			}
		}
		u, err := url.Parse(withScheme)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, &ConfigError{Field: FieldEndpoints, Value: e, Reason: "not an http:// or https:// URL with a host"}
		}
		if u.Scheme == "http" && withTLS {
			return nil, &ConfigError{Field: FieldEndpoints, Value: e, Reason: "plain HTTP, but a CA or a client certificate is given (use https://)"}
		}
		s.endpoints = append(s.endpoints, u.Scheme+"://"+u.Host)
	}
	tlsConfig, err := cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	if tlsConfig != nil {
		transport := http.DefaultTransport.(*http.Transport).Clone()
		transport.TLSClientConfig = tlsConfig
		s.client, s.tls = &http.Client{Transport: transport}, tlsConfig
	}
	switch {
	case cfg.User != "":
		s.auth = &auth{user: cfg.User, password: cfg.Password}
	case cfg.Password != "":
		return nil, &ConfigError{Field: FieldPassword, Reason: "a password without a user name"}
	}
	return s, nil
}

// tlsConfig returns the TLS settings of the config's files, or nil if it
// names none.
func (cfg *Config) tlsConfig() (*tls.Config, error) {
	switch {
	case cfg.CACert == "" && cfg.Cert == "" && cfg.Key == "":
		return nil, nil
	case cfg.Cert != "" && cfg.Key == "":
		return nil, &ConfigError{Field: FieldKey, Reason: "a client certificate needs its key (" + cfg.Cert + ")"}
	case cfg.Key != "" && cfg.Cert == "":
		return nil, &ConfigError{Field: FieldCert, Reason: "a client key needs its certificate (" + cfg.Key + ")"}
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.CACert != "" {
		pem, err := os.ReadFile(cfg.CACert)
		if err != nil {
			return nil, &ConfigError{Field: FieldCACert, Value: cfg.CACert, Reason: "cannot be read", Err: err}
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, &ConfigError{Field: FieldCACert, Value: cfg.CACert, Reason: "holds no PEM certificate"}
		}
	}
	if cfg.Cert != "" {
		for _, f := range []struct {
			field Field
			file  string
		}{{FieldCert, cfg.Cert}, {FieldKey, cfg.Key}} {
			if _, err := os.Stat(f.file); err != nil {
				return nil, &ConfigError{Field: f.field, Value: f.file, Reason: "cannot be read", Err: err}
			}
		}
		cert, err := tls.LoadX509KeyPair(cfg.Cert, cfg.Key)
		if err != nil {
			return nil, &ConfigError{Field: FieldCert, Value: cfg.Cert, Reason: "is not a PEM certificate matching the key " + cfg.Key, Err: err}
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}
