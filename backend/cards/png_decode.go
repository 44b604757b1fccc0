package cards

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"

	"hearth/backend/jsonx"
)

// DecodePNG reads a PNG card. The `ccv3` chunk wins over `chara`, as the
// V3 specification and SillyTavern say; when `ccv3` cannot be read but
// `chara` can, the card comes from `chara` with a warning. The avatar is
// the PNG itself without its card chunks.
func DecodePNG(raw []byte) (*Imported, error) {
	return decodePNG(raw, defaultLimits)
}

func decodePNG(raw []byte, lim limits) (*Imported, error) {
	if len(raw) > lim.fileBytes {
		return nil, tooLarge("the PNG", len(raw), lim.fileBytes)
	}
	chunks, err := readChunks(raw, lim)
	if err != nil {
		return nil, err
	}
	var v2, v3 []byte
	var hasV2, hasV3 bool
	var risu []chunk
	for _, c := range chunks {
		kw, text, ok := textChunk(c)
		if !ok {
			continue
		}
		switch kw = strings.ToLower(kw); {
		case kw == keywordV3 && !hasV3:
			v3, hasV3 = text, true
		case kw == keywordV2 && !hasV2:
			v2, hasV2 = text, true
		case strings.HasPrefix(kw, keywordRisuAssets):
			risu = append(risu, c)
		}
	}
	var imp *Imported
	switch {
	case hasV3:
		imp, err = decodeCardText(v3, lim)
		if err != nil && hasV2 {
			if fallback, err2 := decodeCardText(v2, lim); err2 == nil {
				fallback.Warnings = append(fallback.Warnings, fmt.Sprintf("the ccv3 chunk could not be read (%s); the card comes from the chara chunk", errMessage(err)))
				imp, err = fallback, nil
			}
		}
		if err != nil {
			return nil, prefixed(err, "the ccv3 chunk: ")
		}
	case hasV2:
		if imp, err = decodeCardText(v2, lim); err != nil {
			return nil, prefixed(err, "the chara chunk: ")
		}
	default:
		return nil, invalid("no_card", "the PNG holds no character card (it has no chara or ccv3 text chunk)")
	}
	imp.Format = FormatPNG
	imp.Image = writePNG(chunks)
	imp.ImageType = "image/png"
	imp.Assets = risuAssets(risu, imp.Data, &imp.Warnings)
	return imp, nil
}

// decodeCardText decodes a chunk's base64 text and reads the card in it.
func decodeCardText(text []byte, lim limits) (*Imported, error) {
	js, err := decodeBase64(text, lim.fileBytes)
	if err != nil {
		return nil, err
	}
	return parseCard(js, lim)
}

// decodeBase64 decodes text as leniently as the Node.js decoder that
// SillyTavern uses: whitespace and padding are optional and the URL-safe
// alphabet is accepted; anything else outside the alphabet is an error.
func decodeBase64(text []byte, max int) ([]byte, error) {
	if bytes.ContainsAny(text, " \t\r\n") {
		text = bytes.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, text)
	}
	if len(text)/4*3 > max {
		return nil, tooLarge("the card", len(text)/4*3, max)
	}
	text = bytes.TrimRight(text, "=")
	enc := base64.RawStdEncoding
	if bytes.ContainsAny(text, "-_") {
		enc = base64.RawURLEncoding
	}
	out := make([]byte, enc.DecodedLen(len(text)))
	n, err := enc.Decode(out, text)
	if err != nil {
		return nil, invalid("base64", "the card is not valid base64: %v", err)
	}
	return out[:n], nil
}

// risuAssets decodes RisuAI's `chara-ext-asset_:<path>` chunks, matching
// each to the card's `assets` entry whose uri is `__asset:<path>`. An
// undecodable chunk is skipped with a warning: it is decoration, the card
// is already read.
func risuAssets(chunks []chunk, data jsonx.Object, warnings *[]string) []Asset {
	if len(chunks) == 0 {
		return nil
	}
	listed := listedAssets(data)
	var out []Asset
	for _, c := range chunks {
		kw, text, _ := textChunk(c)
		p := strings.TrimPrefix(kw[len(keywordRisuAssets):], ":")
		content, err := decodeBase64(text, MaxFileBytes)
		if err != nil {
			*warnings = append(*warnings, fmt.Sprintf("the PNG asset chunk %q could not be read (%s); it was skipped", kw, errMessage(err)))
			continue
		}
		a := Asset{URI: "__asset:" + p, Path: p, Data: content}
		if meta, ok := listed[a.URI]; ok {
			a.Type, a.Name, a.Ext = meta.Type, meta.Name, meta.Ext
		}
		out = append(out, a)
	}
	return out
}
