package etcdhttp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// auth keeps the token of a Store's user.
type auth struct {
	user, password string

	mu    sync.Mutex // held while authenticating, so that one request does it
	known bool       // token holds what the last authentication gave
	value string     // the token; "" if etcd's auth is not enabled
}

// token returns the token to send. It authenticates if there is none yet,
// or if the token is stale, the one a request was just refused for (a
// request that found the token already replaced by another's
// authentication takes the new one).
func (a *auth) token(ctx context.Context, s *Store, stale string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.known && (stale == "" || a.value != stale) {
		return a.value, nil
	}
	var resp struct {
		Token string `json:"token"`
	}
	body, err := json.Marshal(map[string]string{"name": a.user, "password": a.password})
	if err != nil {
		return "", err
	}
	err = s.send(ctx, "/v3/auth/authenticate", body, "", &resp)
	var e *Error
	switch {
	case errors.As(err, &e) && e.Code == codeFailedPrecondition && e.Message == msgAuthNotEnabled:
		// As etcdctl does: a user given to a cluster without auth is no
		// error, and requests go without a token.
		resp.Token = ""
	case errors.As(err, &e):
		return "", &AuthError{User: a.user, Err: e}
	case err != nil:
		return "", err
	}
	a.known, a.value = true, resp.Token
	return a.value, nil
}
