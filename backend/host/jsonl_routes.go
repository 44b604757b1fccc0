package host

import (
	"context"
	"encoding/json"
	"strings"

	"hearth/backend/chats"
	"hearth/backend/jsonx"
)

// registerJsonl adds SillyTavern JSONL import and export (HOST-ABI §3.8).
func registerJsonl(r *Router, svc *chats.Service) {
	r.Register("chat.exportJsonl", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		// Encoded by the service line by line: a whole chat as one string.
		return svc.ExportJsonlJSON(ctx, id)
	})
	r.Register("chat.importJsonl", func(ctx context.Context, a Args) (any, error) {
		var owner chats.Owner
		if err := a.Object(0, "owner", &owner); err != nil {
			return nil, err
		}
		file, ok := quotedJsonlFile(a.Raw(1))
		if !ok {
			if err := a.Object(1, "file", &file); err != nil {
				return nil, err
			}
		}
		return svc.ImportJsonl(ctx, owner, file)
	})
}

// quotedJsonlFile reads chat.importJsonl's file argument {fileName, text}
// keeping text as the JSON string it arrived as (chats.JsonlImport.Quoted):
// the import unquotes it line by line. The router validated the argument
// already, so it is split without a second validating pass over the
// megabytes of text. Anything else about the argument (not an object, a
// member null or of the wrong type, a name encoding/json would match in
// another case) is left to Args.Object and its errors: ok is false.
func quotedJsonlFile(raw json.RawMessage) (chats.JsonlImport, bool) {
	var file chats.JsonlImport
	o, ok := jsonx.SplitEncoded(raw)
	if !ok {
		return file, false
	}
	for k := range o {
		if (strings.EqualFold(k, "text") && k != "text") || (strings.EqualFold(k, "fileName") && k != "fileName") {
			return file, false
		}
	}
	text := o["text"]
	if len(text) < 2 || text[0] != '"' {
		return file, false
	}
	if name, ok := o["fileName"]; ok {
		s, err := jsonx.String(name, "fileName")
		if err != nil {
			return file, false
		}
		file.FileName = s
	}
	file.Quoted = string(text)
	return file, true
}
