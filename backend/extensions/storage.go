package extensions

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// Storage limits (EXTENSIONS.md §3).
const (
	// StorageQuota is what one extension may store: the bytes of its
	// keys and values together.
	StorageQuota = 10 << 20
	// MaxKeyBytes bounds one key.
	MaxKeyBytes = 1024
)

// StorageGet returns the JSON value under key in id's storage, or null.
func (s *Service) StorageGet(ctx context.Context, id, key string) (json.RawMessage, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	canonical, err := s.installedID(ctx, s.db.Reader(), id)
	if err != nil {
		return nil, err
	}
	var v string
	err = s.db.Reader().QueryRowContext(ctx, `SELECT value FROM extension_storage WHERE extension_id = ? AND key = ?`, canonical, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return json.RawMessage("null"), nil
	}
	if err != nil {
		return nil, fmt.Errorf("extension storage get: %w", err)
	}
	return json.RawMessage(v), nil
}

// StorageSet stores value (JSON) under key in id's storage, in one
// transaction; past the quota it is extension.quota_exceeded and nothing
// is written.
func (s *Service) StorageSet(ctx context.Context, id, key string, value json.RawMessage) error {
	if err := checkKey(key); err != nil {
		return err
	}
	value = bytes.TrimSpace(value)
	if len(value) == 0 || !json.Valid(value) {
		return apperr.Invalid("value must be JSON")
	}
	if err := jsonx.CheckDepth(value, "value"); err != nil {
		return err
	}
	size := int64(len(key) + len(value))
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		canonical, err := s.installedID(ctx, tx, id)
		if err != nil {
			return err
		}
		var used, old int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(bytes), 0), COALESCE(SUM(CASE WHEN key = ? THEN bytes END), 0)
			FROM extension_storage WHERE extension_id = ?`, key, canonical).Scan(&used, &old); err != nil {
			return fmt.Errorf("extension storage set: %w", err)
		}
		if after := used - old + size; after > StorageQuota {
			return apperr.New(CodeQuotaExceeded, "%s's storage would hold %d bytes; the quota is %d MiB", canonical, after, StorageQuota>>20).
				WithDetails(map[string]any{"id": canonical, "used": used, "quota": StorageQuota})
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO extension_storage (extension_id, key, value, bytes) VALUES (?, ?, ?, ?)
			ON CONFLICT (extension_id, key) DO UPDATE SET value = excluded.value, bytes = excluded.bytes`,
			canonical, key, string(value), size); err != nil {
			return fmt.Errorf("extension storage set: %w", err)
		}
		return nil
	})
}

// StorageDelete removes key from id's storage (a missing key is fine).
func (s *Service) StorageDelete(ctx context.Context, id, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		canonical, err := s.installedID(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM extension_storage WHERE extension_id = ? AND key = ?`, canonical, key); err != nil {
			return fmt.Errorf("extension storage delete: %w", err)
		}
		return nil
	})
}

// StorageList returns the keys in id's storage starting with prefix, in
// byte order.
func (s *Service) StorageList(ctx context.Context, id, prefix string) ([]string, error) {
	canonical, err := s.installedID(ctx, s.db.Reader(), id)
	if err != nil {
		return nil, err
	}
	// substr rather than LIKE: a prefix may hold % and _.
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT key FROM extension_storage
		WHERE extension_id = ? AND substr(key, 1, length(?)) = ? ORDER BY key`, canonical, prefix, prefix)
	if err != nil {
		return nil, fmt.Errorf("extension storage list: %w", err)
	}
	defer rows.Close()
	keys := []string{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("extension storage list: %w", err)
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// installedID returns id as installed (ids match without regard to case).
func (s *Service) installedID(ctx context.Context, q querier, id string) (string, error) {
	if strings.TrimSpace(id) == "" {
		return "", apperr.Invalid("extensionId is required")
	}
	var canonical string
	err := q.QueryRowContext(ctx, `SELECT id FROM extensions WHERE id = ?`, id).Scan(&canonical)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notFound(id)
	}
	if err != nil {
		return "", fmt.Errorf("extension storage: %w", err)
	}
	return canonical, nil
}

func checkKey(key string) error {
	switch {
	case key == "":
		return apperr.Invalid("key must not be empty")
	case len(key) > MaxKeyBytes:
		return apperr.Invalid("key is %d bytes; at most %d are allowed", len(key), MaxKeyBytes)
	}
	return nil
}
