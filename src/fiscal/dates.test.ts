import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  calendarDateOf,
  formatDgiiDate,
  formatDgiiTimestamp,
  formatIsoDate,
  isoDateOf,
  isoDateOfDgiiDate,
  parseDgiiDate,
  parseDgiiTimestamp,
} from './dates.js';

describe('DGII dates in GMT-4', () => {
  const cases: [string, string, string][] = [
    ['2026-11-21T12:00:00Z', '21-11-2026', '21-11-2026 08:00:00'],
    // 02:30 UTC on the 1st is still the previous evening in Santo Domingo.
    ['2027-01-01T02:30:05Z', '31-12-2026', '31-12-2026 22:30:05'],
    ['2026-03-08T04:00:00Z', '08-03-2026', '08-03-2026 00:00:00'],
    // No daylight saving: July is GMT-4 too.
    ['2026-07-15T23:59:59Z', '15-07-2026', '15-07-2026 19:59:59'],
  ];
  for (const [iso, date, timestamp] of cases) {
    it(`writes ${iso} as ${timestamp}`, () => {
      assert.equal(formatDgiiDate(new Date(iso)), date);
      assert.equal(formatDgiiTimestamp(new Date(iso)), timestamp);
      assert.equal(parseDgiiTimestamp(timestamp)?.toISOString(), new Date(iso).toISOString());
    });
  }

  it('reads the calendar day of an instant in GMT-4', () => {
    assert.deepEqual(calendarDateOf(new Date('2027-01-01T02:30:05Z')), { day: 31, month: 12, year: 2026 });
  });

  it('writes the GMT-4 day of an instant as yyyy-MM-dd, turning at 04:00 UTC', () => {
    assert.equal(isoDateOf(new Date('2026-11-22T03:59:59.999Z')), '2026-11-21');
    assert.equal(isoDateOf(new Date('2026-11-22T04:00:00Z')), '2026-11-22');
    assert.equal(formatIsoDate({ day: 5, month: 3, year: 987 }), '0987-03-05');
  });

  for (const [text, expected] of [
    ['01-02-2026', { day: 1, month: 2, year: 2026 }],
    ['1-2-2026', { day: 1, month: 2, year: 2026 }],
    ['29-02-2028', { day: 29, month: 2, year: 2028 }],
    ['29-02-2027', undefined],
    ['31-04-2026', undefined],
    ['2026-01-02', undefined],
    ['01/02/2026', undefined],
  ] as const) {
    it(`parses "${text}" as ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(parseDgiiDate(text), expected);
    });
  }

  for (const [text, expected] of [
    ['21-11-2026', '2026-11-21'],
    ['1-2-2026', '2026-02-01'],
    ['31-02-2026', undefined],
  ] as const) {
    it(`writes the day "${text}" as ${String(expected)}`, () => {
      assert.equal(isoDateOfDgiiDate(text), expected);
    });
  }

  for (const text of ['21-11-2026 24:00:00', '21-11-2026 8:00:00', '21-11-2026T08:00:00', '31-11-2026 08:00:00']) {
    it(`refuses the timestamp "${text}"`, () => {
      assert.equal(parseDgiiTimestamp(text), undefined);
    });
  }

  it('refuses an invalid instant instead of writing NaN', () => {
    assert.throws(() => formatDgiiDate(new Date('nope')), RangeError);
  });
});
