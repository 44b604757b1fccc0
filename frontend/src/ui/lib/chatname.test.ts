import { describe, expect, it } from 'vitest';
import { chatTitle } from './chatname';

describe('chatTitle', () => {
  it('turns SillyTavern time stamps into dates', () => {
    expect(chatTitle('Seraphina - 2026-11-22@03h04m05s123ms', 'Seraphina')).toBe('Nov 22, 2026, 3:04 AM');
    expect(chatTitle('Seraphina - 2024-1-5 @15h30m00s', 'Seraphina')).toBe('Jan 5, 2024, 3:30 PM');
    expect(chatTitle('2026-11-22@13h04m05s123ms')).toBe('Nov 22, 2026, 1:04 PM');
  });
  it('writes the date as the browser’s language does', () => {
    expect(chatTitle('Ada - 2026-11-28@14h05m35s883ms', 'Ada', 'en-GB')).toBe('28 Nov 2026, 14:05');
    expect(chatTitle('Ada - 2026-11-28@14h05m35s883ms', 'Ada', 'de-DE')).toMatch(/^28\.\s?Nov\.? 2026, 14:05$/);
  });
  it('reads a default name whose character is not known or was renamed', () => {
    expect(chatTitle('Ada - 2026-11-28@14h05m35s883ms', undefined, 'en-US')).toBe('Ada · Nov 28, 2026, 2:05 PM');
    expect(chatTitle('Kai - 2026-11-22@03h04m05s123ms', 'Seraphina', 'en-US')).toBe('Kai · Nov 22, 2026, 3:04 AM');
  });
  it('leads with the kind of a default checkpoint or branch name', () => {
    expect(chatTitle('Seraphina - 2026-11-22@03h04m05s123ms - Branch #2', 'Seraphina')).toBe('Branch #2 · Nov 22, 2026, 3:04 AM');
    expect(chatTitle('Seraphina - 2026-11-22@03h04m05s123ms - Checkpoint #1 - Branch #3', 'Seraphina')).toBe(
      'Branch #3 · Checkpoint #1 · Nov 22, 2026, 3:04 AM',
    );
    expect(chatTitle('Evening - Checkpoint #1', 'Seraphina')).toBe('Checkpoint #1 · Evening');
  });
  it('keeps names the user chose', () => {
    expect(chatTitle('Evening in the glade', 'Seraphina')).toBe('Evening in the glade');
    expect(chatTitle('Seraphina - Branch #2', 'Seraphina')).toBe('Branch #2');
    expect(chatTitle('Notes - 2026 plans', 'Seraphina')).toBe('Notes - 2026 plans');
    expect(chatTitle('Seraphina - ', 'Seraphina')).toBe('Seraphina - ');
  });
});

describe('plainPreview', async () => {
  const { plainPreview } = await import('./chatname');
  it('drops Markdown marks and tags', () => {
    expect(plainPreview('*The fire crackles.* "Rest now."')).toBe('The fire crackles. "Rest now."');
    expect(plainPreview('**bold** and `code` and [a link](https://x.y)\n\n> quoted\n- item')).toBe('bold and code and a link quoted item');
    expect(plainPreview('<b>hi</b> <img src=x onerror=alert(1)>there')).toBe('hi there');
    expect(plainPreview('5 * 3 = 15')).toBe('5 * 3 = 15');
  });
  it('truncates', () => {
    expect(plainPreview('a'.repeat(10), 5)).toBe('aaaa…');
  });
});
