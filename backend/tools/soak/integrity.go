package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver Hearth itself uses
)

// checkDatabase runs PRAGMA integrity_check and PRAGMA foreign_key_check
// on the database at path, read-only, while no server has it open. It
// returns integrity_check's answer as one line ("ok" when sound) and one
// line per foreign key violation.
func checkDatabase(path string) (integrity []string, violations []string, err error) {
	q := url.Values{}
	q.Add("mode", "ro")
	q.Add("_pragma", "busy_timeout(10000)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return nil, nil, fmt.Errorf("integrity_check: %w", err)
	}
	var lines []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, nil, err
		}
		lines = append(lines, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	integrity = []string{strings.Join(lines, " | ")}

	fk, err := db.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return nil, nil, fmt.Errorf("foreign_key_check: %w", err)
	}
	defer fk.Close()
	for fk.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fkid int
		if err := fk.Scan(&table, &rowid, &parent, &fkid); err != nil {
			return nil, nil, err
		}
		violations = append(violations, fmt.Sprintf("%s row %d → %s (constraint %d)", table, rowid.Int64, parent, fkid))
	}
	return integrity, violations, fk.Err()
}
