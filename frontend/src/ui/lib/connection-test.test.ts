import { describe, expect, it } from 'vitest';
import { failureText, formProblems, isWebAddress, probeSpot, testText, type FormState } from './connection-test';

const filled: FormState = {
  name: 'Local',
  provider: 'openai-compatible',
  providerLabel: 'OpenAI-compatible',
  baseUrl: 'http://127.0.0.1:8080/v1',
  apiKey: '',
  keyStored: false,
  model: 'llama-3.1-8b',
  modelsListed: false,
};

describe('formProblems', () => {
  it('finds nothing wrong with a whole form', () => {
    expect(formProblems(filled)).toEqual({});
    expect(formProblems({ ...filled, provider: 'anthropic', providerLabel: 'Anthropic', baseUrl: '', apiKey: 'sk-ant' })).toEqual({});
    expect(formProblems({ ...filled, provider: 'google', providerLabel: 'Google Gemini', baseUrl: '', keyStored: true })).toEqual({});
  });
  it('asks for a model, pointing at the list when there is one', () => {
    expect(formProblems({ ...filled, model: '  ' })).toEqual({ model: 'Choose a model: type its name, or load the server’s models to pick one.' });
    expect(formProblems({ ...filled, model: '', modelsListed: true }).model).toBe('Choose a model: pick one from the list, or type its name.');
  });
  it('asks for a name and an address, and reads the address', () => {
    const p = formProblems({ ...filled, name: ' ', baseUrl: '' });
    expect(p.name).toBe('Give the connection a name.');
    expect(p.baseUrl).toMatch(/^Enter the server’s address/);
    expect(formProblems({ ...filled, baseUrl: '127.0.0.1:8080/v1' }).baseUrl).toMatch(/^The address starts with http:\/\/ or https:\/\//);
    // Anthropic and Google have addresses of their own.
    expect(formProblems({ ...filled, provider: 'anthropic', providerLabel: 'Anthropic', baseUrl: '', apiKey: 'k' }).baseUrl).toBeUndefined();
  });
  it('asks for a key only for a provider’s own server', () => {
    expect(formProblems({ ...filled, provider: 'google', providerLabel: 'Google Gemini', baseUrl: '' }).apiKey).toBe('Google Gemini needs an API key.');
    expect(formProblems({ ...filled, provider: 'anthropic', providerLabel: 'Anthropic', baseUrl: 'https://proxy.example/v1' }).apiKey).toBeUndefined();
    expect(formProblems(filled).apiKey).toBeUndefined();
  });
});

describe('connection test words', () => {
  it('says what a test found, with a capital', () => {
    expect(testText({ ok: true, models: 1 })).toBe('Connected · 1 model');
    expect(testText({ ok: false, error: { code: 'model.unreachable', message: 'Nothing answered at 127.0.0.1:9999' } })).toBe('Nothing answered at 127.0.0.1:9999');
    expect(failureText({ message: 'the provider refused the API key (HTTP 401)' })).toBe('The provider refused the API key (HTTP 401)');
  });
  it('puts a failed listing beside the field it is about', () => {
    expect(probeSpot('model.unreachable')).toBe('baseUrl');
    expect(probeSpot('model.timeout')).toBe('baseUrl');
    expect(probeSpot('model.auth_failed')).toBe('apiKey');
    expect(probeSpot('model.request_failed')).toBe('model');
  });
  it('reads web addresses', () => {
    expect(isWebAddress('https://api.openai.com/v1')).toBe(true);
    expect(isWebAddress('localhost:8080')).toBe(false);
    expect(isWebAddress('ftp://x/')).toBe(false);
  });
});
