import { describe, expect, it } from 'vitest';
import type { Connection } from '../../abi/types';
import { dropsStoredKey, keyOrigin } from './connection-key';

describe('keyOrigin', () => {
  it.each<[Connection['provider'], string, string | null]>([
    ['openai-compatible', 'http://127.0.0.1:8080/v1', 'http://127.0.0.1:8080'],
    ['openai-compatible', ' HTTPS://API.Example.com:443/v1/ ', 'https://api.example.com'],
    ['openai-compatible', 'http://localhost:80/v1', 'http://localhost'],
    ['openai-compatible', 'http://[::1]:8080/v1', 'http://[::1]:8080'],
    ['openai-compatible', '', null],
    ['openai-compatible', 'ftp://example.com', null],
    ['openai-compatible', '127.0.0.1:8080', null],
    ['anthropic', '', 'https://api.anthropic.com'],
    ['google', '', 'https://generativelanguage.googleapis.com'],
  ])('%s %s', (provider, baseUrl, want) => {
    expect(keyOrigin(provider, baseUrl)).toBe(want);
  });
});

describe('dropsStoredKey', () => {
  const stored = { provider: 'openai-compatible' as const, baseUrl: 'http://127.0.0.1:8080/v1', apiKeySet: true };

  it('keeps the key when the origin stays', () => {
    expect(dropsStoredKey(stored, 'openai-compatible', 'http://127.0.0.1:8080/v1', '')).toBe(false);
    expect(dropsStoredKey(stored, 'openai-compatible', 'http://127.0.0.1:8080/api/v2/', '')).toBe(false);
    expect(dropsStoredKey({ provider: 'anthropic', baseUrl: '', apiKeySet: true }, 'anthropic', 'https://API.anthropic.com:443', '')).toBe(false);
  });

  it('drops it when the origin or the provider changes', () => {
    expect(dropsStoredKey(stored, 'openai-compatible', 'http://127.0.0.1:8081/v1', '')).toBe(true);
    expect(dropsStoredKey(stored, 'openai-compatible', 'http://localhost:8080/v1', '')).toBe(true);
    expect(dropsStoredKey(stored, 'openai-compatible', 'https://127.0.0.1:8080/v1', '')).toBe(true);
    expect(dropsStoredKey(stored, 'anthropic', 'http://127.0.0.1:8080/v1', '')).toBe(true);
    expect(dropsStoredKey(stored, 'openai-compatible', 'not a url', '')).toBe(true);
  });

  it('says nothing without a stored key, or when a new key comes with the change', () => {
    expect(dropsStoredKey({ ...stored, apiKeySet: false }, 'openai-compatible', 'http://127.0.0.1:9/v1', '')).toBe(false);
    expect(dropsStoredKey(stored, 'openai-compatible', 'http://127.0.0.1:9/v1', 'sk-new')).toBe(false);
  });
});
