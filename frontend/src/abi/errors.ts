// HostError is the one failure shape every ABI method rejects with
// (HOST-ABI §0): a stable dotted code, a message and optional details.

/** The wire shape of a backend error, shared by both transports. */
export interface HostErrorShape {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Codes the frontend's transports add for failures that never reached the host. */
export const TransportCodes = {
  /** The backend could not be reached or answered with something unreadable. */
  unavailable: 'transport.unavailable',
  /** This document may not talk to the host (framed, or no capability token). */
  denied: 'auth.denied',
} as const;

export class HostError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'HostError';
    this.code = code;
    this.details = details;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** isErrorShape reports whether v looks like {code, message, details?}. */
export function isErrorShape(v: unknown): v is HostErrorShape {
  return (
    isRecord(v) &&
    typeof v.code === 'string' &&
    v.code !== '' &&
    typeof v.message === 'string' &&
    (v.details === undefined || v.details === null || isRecord(v.details))
  );
}

function fromShape(shape: HostErrorShape): HostError {
  return new HostError(shape.code, shape.message, shape.details ?? undefined);
}

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * decodeError turns whatever a transport rejected with into a HostError:
 * the Wails bridge rejects with the JSON text of the shape, the HTTP API
 * answers {"error": shape}, and anything else (a network failure, a bug)
 * becomes an "internal" error that keeps its text.
 */
export function decodeError(raw: unknown): HostError {
  if (raw instanceof HostError) return raw;
  if (isErrorShape(raw)) return fromShape(raw);
  if (isRecord(raw) && isErrorShape(raw.error)) return fromShape(raw.error);
  const text = raw instanceof Error ? raw.message : typeof raw === 'string' ? raw : String(raw);
  const parsed = parseJSON(text);
  if (isErrorShape(parsed)) return fromShape(parsed);
  if (isRecord(parsed) && isErrorShape(parsed.error)) return fromShape(parsed.error);
  return new HostError('internal', text);
}
