package worldinfo

// timedEffects is SillyTavern's WorldInfoTimedEffects for one activation:
// it reads the stored state, decides which entries are sticky, cooling
// down or delayed, and records the effects of what activated.
type timedEffects struct {
	state   TimedState
	chatLen int
	dryRun  bool
	byRef   map[string]*scanEntry
	sticky  map[*scanEntry]bool
	cool    map[*scanEntry]bool
	delayed map[*scanEntry]bool
}

func newTimedEffects(in *Input, entries []*scanEntry, chatLen int) *timedEffects {
	t := &timedEffects{
		state:   in.Timed.Clone(),
		chatLen: chatLen,
		dryRun:  in.DryRun,
		byRef:   make(map[string]*scanEntry, len(entries)),
		sticky:  map[*scanEntry]bool{},
		cool:    map[*scanEntry]bool{},
		delayed: map[*scanEntry]bool{},
	}
	for _, e := range entries {
		if _, dup := t.byRef[e.ref]; !dup {
			t.byRef[e.ref] = e
		}
	}
	return t
}

// check applies the stored effects: it drops the ones that ended or no
// longer apply (a sticky that ended starts the entry's cooldown) and
// notes the entries under an effect. A dry run skips sticky and cooldown,
// as SillyTavern's does; delays always apply.
func (t *timedEffects) check() {
	if !t.dryRun {
		t.checkKind(t.state.Sticky, func(e *Entry) int { return e.Sticky }, t.sticky, t.stickyEnded)
		t.checkKind(t.state.Cooldown, func(e *Entry) int { return e.Cooldown }, t.cool, nil)
	}
	for _, e := range t.byRef {
		if e.e.Delay != 0 && t.chatLen < e.e.Delay {
			t.delayed[e] = true
		}
	}
}

func (t *timedEffects) checkKind(effects map[string]TimedEffect, value func(*Entry) int, active map[*scanEntry]bool, ended func(*scanEntry)) {
	for _, key := range sortedEffectKeys(effects) {
		v := effects[key]
		if t.chatLen <= v.Start && !v.Protected {
			// The chat did not advance (a swipe or regenerate): the effect
			// is set again if the entry activates again.
			delete(effects, key)
			continue
		}
		e := t.find(key, v.Hash)
		if e == nil {
			// An entry of a book not attached now, or edited since.
			if t.chatLen >= v.End {
				delete(effects, key)
			}
			continue
		}
		if value(e.e) == 0 {
			delete(effects, key)
			continue
		}
		if t.chatLen >= v.End {
			delete(effects, key)
			if ended != nil {
				ended(e)
			}
			continue
		}
		active[e] = true
	}
}

// find is the entry an effect belongs to: the one under its key whose
// content still hashes the same.
func (t *timedEffects) find(key string, hash int64) *scanEntry {
	e := t.byRef[key]
	if e == nil || e.hash() != hash {
		return nil
	}
	return e
}

// stickyEnded starts the cooldown of an entry whose sticky ended; it
// counts from now and survives a chat that does not advance.
func (t *timedEffects) stickyEnded(e *scanEntry) {
	if e.e.Cooldown == 0 {
		return
	}
	t.state.Cooldown[e.ref] = TimedEffect{Hash: e.hash(), Start: t.chatLen, End: t.chatLen + e.e.Cooldown, Protected: true}
	t.cool[e] = true
}

// record sets the sticky and cooldown effects of the activated entries
// that have them and do not already run one.
func (t *timedEffects) record(activated []*scanEntry) {
	if t.dryRun {
		return
	}
	for _, e := range activated {
		if n := e.e.Sticky; n != 0 {
			if _, ok := t.state.Sticky[e.ref]; !ok {
				t.state.Sticky[e.ref] = TimedEffect{Hash: e.hash(), Start: t.chatLen, End: t.chatLen + n}
			}
		}
		if n := e.e.Cooldown; n != 0 {
			if _, ok := t.state.Cooldown[e.ref]; !ok {
				t.state.Cooldown[e.ref] = TimedEffect{Hash: e.hash(), Start: t.chatLen, End: t.chatLen + n}
			}
		}
	}
}

func sortedEffectKeys(m map[string]TimedEffect) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

// entryHash is the hash SillyTavern keys an entry's timed effects by:
// getStringHash(JSON.stringify(entry)) over the entry as its scan sees it,
// {uid, world, ...fields, decorators} with the decorators cut from the
// content.
func entryHash(world string, e *Entry, decorators []string, content string) int64 {
	ms := e.members()
	var out []jsMember
	worldValue := appendJSString(nil, world)
	for _, m := range ms {
		switch m.key {
		case "uid":
			out = append(out, jsMember{key: "uid", value: canonical(m.value)})
		case "world":
			worldValue = canonical(m.value)
		}
	}
	out = append(out, jsMember{key: "world", value: worldValue})
	for _, m := range ms {
		if m.key == "uid" || m.key == "world" {
			continue
		}
		out = append(out, jsMember{key: m.key, value: canonical(m.value)})
	}
	out = append(out, jsMember{key: "decorators", value: encStrings(nil, decorators)})
	out = append(out, jsMember{key: "content", value: appendJSString(nil, content)})
	return stringHash(string(appendJSObject(nil, out)))
}

// canonical re-encodes a stored value as JSON.stringify would write it.
func canonical(raw []byte) []byte {
	c, err := jsCanonical(raw)
	if err != nil {
		return raw
	}
	return c
}
