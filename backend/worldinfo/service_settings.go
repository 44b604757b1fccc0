package worldinfo

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// Config is worldinfo.getSettings' answer: the activation settings under
// SillyTavern's names, and the globally selected books.
type Config struct {
	Settings
	GlobalSelect []string `json:"globalSelect"`
}

// Config reads the World Info settings (SillyTavern's defaults until
// saved) and the global selection.
func (s *Service) Config(ctx context.Context) (Config, error) {
	c := Config{Settings: DefaultSettings()}
	var raw string
	err := s.db.Reader().QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, settingsKey).Scan(&raw)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Config{}, fmt.Errorf("read the World Info settings: %w", err)
	}
	if err == nil {
		_ = json.Unmarshal([]byte(raw), &c.Settings)
	}
	if c.GlobalSelect, err = globalSelection(ctx, s.db.Reader()); err != nil {
		return Config{}, err
	}
	return c, nil
}

// SaveConfig merges patch (any of Config's keys) into the settings. Bad
// values are refused with the field named, and nothing is saved.
func (s *Service) SaveConfig(ctx context.Context, patch json.RawMessage) (Config, error) {
	cur, err := s.Config(ctx)
	if err != nil {
		return Config{}, err
	}
	if err := refuseNullSettings(patch); err != nil {
		return Config{}, err
	}
	next := cur
	dec := json.NewDecoder(bytesReader(patch))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&next); err != nil {
		return Config{}, apperr.Invalid("World Info settings: %v", err)
	}
	for _, c := range []struct {
		field     string
		v, lo, hi int
	}{
		{"world_info_depth", next.Depth, 0, MaxScanDepth},
		{"world_info_min_activations", next.MinActivations, 0, 1000},
		{"world_info_min_activations_depth_max", next.MinActivationsDepthMax, 0, MaxScanDepth},
		{"world_info_budget", next.Budget, 1, 100},
		{"world_info_budget_cap", next.BudgetCap, 0, 1 << 20},
		{"world_info_max_recursion_steps", next.MaxRecursionSteps, 0, 100},
		{"world_info_character_strategy", next.CharacterStrategy, 0, 2},
	} {
		if c.v < c.lo || c.v > c.hi {
			return Config{}, apperr.Invalid("%s must be between %d and %d", c.field, c.lo, c.hi).WithDetails(map[string]any{"field": c.field})
		}
	}
	if len(next.GlobalSelect) > 1000 {
		return Config{}, apperr.Invalid("globalSelect names at most 1000 books").WithDetails(map[string]any{"field": "globalSelect"})
	}
	if next.GlobalSelect == nil {
		next.GlobalSelect = []string{}
	}
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		if err := putSetting(ctx, tx, settingsKey, next.Settings); err != nil {
			return err
		}
		if err := putSetting(ctx, tx, globalKey, next.GlobalSelect); err != nil {
			return err
		}
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.WorldInfoSettings, Payload: &events.WorldInfoSettingsPayload{Settings: next}})
		})
		return nil
	})
	if err != nil {
		return Config{}, err
	}
	return next, nil
}

// refuseNullSettings refuses a setting given as null. No setting may be
// null: it is what JSON makes of NaN, and the decoder would keep the
// setting as it was (a save that changed nothing, announced anyway) or,
// for globalSelect, empty the selection. Unknown keys are left to the
// decoder to refuse.
func refuseNullSettings(patch json.RawMessage) error {
	var members map[string]json.RawMessage
	if json.Unmarshal(patch, &members) != nil {
		return nil // the decoder says what is wrong
	}
	keys := make([]string, 0, len(members))
	for k, v := range members {
		if jsonx.IsNull(v) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if what, ok := settingKinds[k]; ok {
			return apperr.Invalid("%s must be %s, got null (NaN or undefined?)", k, what).WithDetails(map[string]any{"field": k})
		}
	}
	return nil
}

// settingKinds describes each key saveSettings takes, for its errors.
var settingKinds = func() map[string]string {
	kinds := map[string]string{"globalSelect": "an array of lorebook names ([] selects none)"}
	t := reflect.TypeOf(Settings{})
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		switch t.Field(i).Type.Kind() {
		case reflect.Bool:
			kinds[name] = "a boolean"
		default:
			kinds[name] = "an integer"
		}
	}
	return kinds
}()
