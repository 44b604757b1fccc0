// Package cards converts character card files — PNG with `chara` / `ccv3`
// text chunks, JSON (V1, V2 and V3) and CHARX archives — to and from
// Hearth's flat card object: the V2 `data` fields (plus any V3 and unknown
// fields) that the characters service stores, keyed by avatar.
//
// It is pure: bytes in, bytes out, no database and no files. Every input is
// hostile and bounded (file size, PNG chunk count, card size, JSON depth,
// archive entries and unpacked bytes); anything it cannot read is a
// card.invalid error whose details.reason says why, never a panic.
//
// The formats follow the public Character Card V2 and V3 specifications and
// what SillyTavern reads and writes, so a card goes back and forth between
// the two applications without losing fields.
package cards

import "hearth/backend/jsonx"

// Error codes of this package (HOST-ABI §0: stable, dotted).
const (
	// CodeInvalid: the file is not a character card Hearth can read.
	// details.reason is one of: too_large, format, png_signature,
	// png_truncated, png_chunk, png_crc, too_many_chunks, no_card, base64,
	// json, not_object, too_deep, spec, no_data, field_type, no_name, zip,
	// too_many_entries, zip_bomb, no_card_json.
	CodeInvalid = "card.invalid"
	// CodeImageUnsupported: an export was given an avatar image it cannot
	// carry a card in (not PNG, JPEG or GIF, or corrupt); details.reason
	// says which.
	CodeImageUnsupported = "card.image_unsupported"
)

// Bounds on what Decode reads. They are far above any real card (a large
// card with a big lorebook is a few MiB) and far below what would hurt.
const (
	// MaxFileBytes caps a card file of any format.
	MaxFileBytes = 64 << 20
	// MaxDataBytes caps the flat card Decode returns (its JSON encoding),
	// what Hearth stores.
	MaxDataBytes = 8 << 20
	// MaxCardBytes caps a card's JSON text once compacted (a PNG chunk
	// after base64, a JSON file, a CHARX card.json): room for MaxDataBytes
	// of data and the V1 mirrors beside it, so the JSON export of anything
	// Decode accepts decodes too (and the PNG export, while its avatar
	// leaves room within MaxFileBytes).
	MaxCardBytes = 2*MaxDataBytes + 64<<10
	// MaxPNGChunks caps the chunks of a PNG; an encoder writing 8 KiB image
	// chunks needs 8,192 for a 64 MiB file.
	MaxPNGChunks = 16384
	// MaxZipEntries caps the files in a CHARX archive.
	MaxZipEntries = 4096
	// MaxZipEntryBytes caps one unpacked CHARX entry.
	MaxZipEntryBytes = 64 << 20
	// MaxZipBytes caps all the CHARX entries Decode unpacks together: the
	// defence against archives that unpack to far more than they weigh.
	MaxZipBytes = 128 << 20
	// MaxImagePixels caps a JPEG or GIF avatar EncodePNG converts to PNG
	// (it must hold every pixel in memory to do so).
	MaxImagePixels = 40 << 20
)

// Format is a card file format.
type Format string

// The formats Decode reads.
const (
	FormatPNG   Format = "png"
	FormatJSON  Format = "json"
	FormatCHARX Format = "charx"
)

// Version is the card specification a file followed.
type Version int

// The card versions: V1 is the flat TavernAI shape with no `spec`; V2 and
// V3 wrap the fields in `data` under `spec` chara_card_v2 / chara_card_v3.
const (
	V1 Version = 1
	V2 Version = 2
	V3 Version = 3
)

// The spec strings of V2 and V3 cards.
const (
	SpecV2 = "chara_card_v2"
	SpecV3 = "chara_card_v3"
)

// JSONExportVersion is the version SillyTavern's JSON export writes: it
// re-reads the card from the PNG, where the `ccv3` chunk wins, so the file
// says chara_card_v3 while carrying the V1 mirrors beside `data`.
const JSONExportVersion = V3

// Imported is what Decode read from a card file.
type Imported struct {
	// Format is the file's format.
	Format Format `json:"format"`
	// Version is the specification the card followed.
	Version Version `json:"version"`
	// SpecVersion is the file's spec_version ("" when absent or V1), kept
	// so a caller can warn about cards newer than it knows.
	SpecVersion string `json:"specVersion"`
	// Data is the flat card: every V2 field present with its default when
	// the file had none, V3 and unknown fields as they were, and
	// character_book when the card embeds one.
	Data jsonx.Object `json:"data"`
	// Image is the avatar: for a PNG the file itself without its card
	// chunks (chara, ccv3, RisuAI assets; an export writes fresh ones) and
	// without bytes after IEND, for CHARX the main icon; nil for JSON and
	// for a CHARX without an icon.
	Image []byte `json:"-"`
	// ImageType is Image's MIME type (image/png, image/jpeg, image/webp or
	// image/gif), "" without an image.
	ImageType string `json:"imageType,omitempty"`
	// Assets are the other files the card embeds (CHARX `embeded://`
	// assets, RisuAI `chara-ext-asset_` PNG chunks), for a caller that
	// keeps sprites and backgrounds; the card's `assets` list stays in Data.
	Assets []Asset `json:"assets,omitempty"`
	// Warnings say what was repaired or skipped on the way in.
	Warnings []string `json:"warnings"`
}

// Asset is one embedded file of a card.
type Asset struct {
	// Type, Name and Ext come from the card's `assets` entry ("" when the
	// file is not listed there).
	Type string `json:"type"`
	Name string `json:"name"`
	Ext  string `json:"ext"`
	// URI is the card's reference to the file (embeded://… or __asset:…).
	URI string `json:"uri"`
	// Path is the file's name inside the archive or chunk.
	Path string `json:"path"`
	// Data is the file's content.
	Data []byte `json:"-"`
}

// limits are the bounds one decode runs under; tests shrink them.
type limits struct {
	fileBytes    int
	cardBytes    int
	dataBytes    int
	pngChunks    int
	zipEntries   int
	zipEntry     int64
	zipTotal     int64
	maxDataDepth int
}

var defaultLimits = limits{
	fileBytes:    MaxFileBytes,
	cardBytes:    MaxCardBytes,
	dataBytes:    MaxDataBytes,
	pngChunks:    MaxPNGChunks,
	zipEntries:   MaxZipEntries,
	zipEntry:     MaxZipEntryBytes,
	zipTotal:     MaxZipBytes,
	maxDataDepth: jsonx.MaxDepth,
}
