/**
 * The values work items carry, read and written as the original does: time tracking's durations
 * (Gitlab::TimeTrackingFormatter over ChronicDuration) and label colours (ColorValidator, COLOR_NAME_TO_HEX,
 * LabelsHelper#text_color_for_bg).
 */
import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  MAX_DURATION,
  parseDuration,
  SECONDS_PER_DAY,
  SECONDS_PER_HOUR,
  SECONDS_PER_MINUTE,
  SECONDS_PER_MONTH,
  SECONDS_PER_WEEK,
  SECONDS_PER_YEAR,
} from '../src/services/work-items/durations.js';
import { normalizeLabelColor, textColorFor } from '../src/services/work-items/label-colors.js';

describe('duration units', () => {
  it('are a working calendar: 8-hour days, 5-day weeks, 4-week months', () => {
    expect([SECONDS_PER_MINUTE, SECONDS_PER_HOUR, SECONDS_PER_DAY, SECONDS_PER_WEEK, SECONDS_PER_MONTH]).toEqual([
      60, 3600, 28_800, 144_000, 576_000,
    ]);
    expect(SECONDS_PER_YEAR).toBe(31_557_600);
    expect(MAX_DURATION).toBe(2_147_483_647);
  });
});

describe('parseDuration', () => {
  it.each([
    ['1s', 1],
    ['30s', 30],
    ['1m', 60],
    ['1h', 3600],
    ['1d', 28_800],
    ['1w', 144_000],
    ['1mo', 576_000],
    ['1y', 31_557_600],
    ['3h30m', 12_600],
    ['3h 30m', 12_600],
    ['1h 30m', 5400],
    ['1w 2d', 201_600],
    ['1w2d3h4m5s', 144_000 + 57_600 + 10_800 + 240 + 5],
    ['1mo 1w 1d 1h 1m 1s', 576_000 + 144_000 + 28_800 + 3600 + 60 + 1],
    ['30m 1h', 5400],
    ['1h 1h', 7200],
    ['2 days', 57_600],
    ['1 day', 28_800],
    ['2 hours', 7200],
    ['1 hour', 3600],
    ['2hrs', 7200],
    ['1hr', 3600],
    ['5 minutes', 300],
    ['1 minute', 60],
    ['5 mins', 300],
    ['1min', 60],
    ['10 seconds', 10],
    ['1 second', 1],
    ['10 secs', 10],
    ['1sec', 1],
    ['2 weeks', 288_000],
    ['1 week', 144_000],
    ['2wks', 288_000],
    ['1wk', 144_000],
    ['2 months', 1_152_000],
    ['1 month', 576_000],
    ['2mos', 1_152_000],
    ['3dy', 86_400],
    ['1 yr', 31_557_600],
    ['2 years', 63_115_200],
    ['1 hour and 30 minutes', 5400],
    ['1 hour, 30 minutes', 5400],
    ['1h, 30m', 5400],
    ['1 week plus 2 days', 201_600],
    ['1 hour with 5 minutes', 3900],
    ['1H 30M', 5400],
    ['2 Days', 57_600],
    ['1 HOUR AND 30 MINUTES', 5400],
    ['1h  \t 30m', 5400],
  ])('reads %j as %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it('takes a lone number for hours, as TimeTrackingFormatter parses with default_unit hours', () => {
    expect(parseDuration('3')).toBe(10_800);
    expect(parseDuration('1.5')).toBe(5400);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('-2')).toBe(-7200);
    expect(parseDuration(' 4 ')).toBe(14_400);
  });

  it('reads decimals exactly and drops what is less than a second, toward zero', () => {
    expect(parseDuration('1.5h')).toBe(5400);
    expect(parseDuration('.5h')).toBe(1800);
    expect(parseDuration('0.5d')).toBe(14_400);
    expect(parseDuration('0.7h')).toBe(2520);
    expect(parseDuration('0.1m')).toBe(6);
    expect(parseDuration('1.25w')).toBe(180_000);
    expect(parseDuration('0.5s')).toBe(0);
    expect(parseDuration('1.5s 1.5s')).toBe(3);
    expect(parseDuration('1.9s')).toBe(1);
    expect(parseDuration('-1.9s')).toBe(-1);
    expect(parseDuration('-0.5s')).toBe(0);
    expect(Object.is(parseDuration('-0.5s'), 0)).toBe(true);
    expect(parseDuration('0.333333333333333333333333333333h')).toBe(1199);
    expect(parseDuration('1.000000000000000000000000000001h')).toBe(3600);
  });

  it('negates the whole duration after a leading -', () => {
    expect(parseDuration('-1h')).toBe(-3600);
    expect(parseDuration('-3h 30m')).toBe(-12_600);
    expect(parseDuration('-1w 2d')).toBe(-201_600);
    expect(parseDuration('  -30m  ')).toBe(-1800);
    expect(parseDuration('- 30m')).toBe(-1800);
    expect(Object.is(parseDuration('-0h'), 0)).toBe(true);
  });

  it('reads zero as 0', () => {
    expect(parseDuration('0h')).toBe(0);
    expect(parseDuration('0m 0s')).toBe(0);
  });

  it('ignores whitespace around', () => {
    expect(parseDuration('  1h  ')).toBe(3600);
    expect(parseDuration('\t1h\n')).toBe(3600);
    expect(parseDuration('\r\n 2d \r\n')).toBe(57_600);
  });

  it.each([
    '',
    '   ',
    '-',
    ' - ',
    'abc',
    '3x',
    'h',
    'hours',
    'mo',
    '--1h',
    '-1h-',
    '1h-',
    '+1h',
    '1h -30m',
    '1h+30m',
    '1h 30',
    '1 2h',
    '3h30',
    '1.h',
    '1.5.5h',
    '1..5h',
    '1,5h',
    '1e9w',
    '1e3',
    'Infinity',
    '-Infinity',
    'NaN',
    '0x10',
    '0x10h',
    '1 hour and',
    'and 1 hour',
    '1h,',
    ',1h',
    '1h,,30m',
    '1 hand 2m',
    '1h and30m',
    '1 fortnight',
    '1 ms',
    '1 millisecond',
    'one hour',
    '1:30',
    '3:41:59',
    '١h',
    '１h',
    '٣',
    '1\u00a0h',
    '1h\u00a030m',
    '\u00a01h',
    '1h\u200b',
    '1\u212Ah',
    'ſ1',
    '1ſ',
    '1h\u0000',
    '1 h o u r',
  ])('takes %j for no duration', (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it('bounds the text at 100 characters', () => {
    const padded = `1h${' '.repeat(98)}`;
    expect(padded).toHaveLength(100);
    expect(parseDuration(padded)).toBe(3600);
    expect(parseDuration(`${padded} `)).toBeNull();
    expect(parseDuration('1'.padStart(101, '0'))).toBeNull();
    expect(parseDuration('1h '.repeat(34))).toBeNull();
    expect(parseDuration('1h '.repeat(33))).toBe(33 * 3600);
    expect(parseDuration('x'.repeat(1_000_000))).toBeNull();
    expect(parseDuration(`${' '.repeat(1_000_000)}1h`)).toBeNull();
    expect(parseDuration('1'.repeat(1_000_000))).toBeNull();
  });

  it('keeps within a 32-bit integer either way', () => {
    expect(parseDuration('2147483647s')).toBe(MAX_DURATION);
    expect(parseDuration('-2147483647s')).toBe(-MAX_DURATION);
    expect(parseDuration('2147483647.999s')).toBe(MAX_DURATION);
    expect(parseDuration('2147483648s')).toBeNull();
    expect(parseDuration('-2147483648s')).toBeNull();
    expect(parseDuration('3728mo')).toBe(3728 * 576_000);
    expect(parseDuration('3729mo')).toBeNull();
    expect(parseDuration('68y')).toBe(68 * 31_557_600);
    expect(parseDuration('69y')).toBeNull();
    expect(parseDuration('596523h')).toBe(596_523 * 3600);
    expect(parseDuration('596524h')).toBeNull();
    expect(parseDuration('2000000000s 2000000000s')).toBeNull();
    expect(parseDuration('99999999999999999999999999999999999999999999999999w')).toBeNull();
  });
});

describe('formatDuration', () => {
  it.each([
    [1, '1s'],
    [30, '30s'],
    [59, '59s'],
    [60, '1m'],
    [90, '1m 30s'],
    [3600, '1h'],
    [3630, '1h 30s'],
    [3661, '1h 1m 1s'],
    [5400, '1h 30m'],
    [9000, '2h 30m'],
    [7 * 3600, '7h'],
    [8 * 3600, '1d'],
    [9 * 3600, '1d 1h'],
    [4 * 28_800, '4d'],
    [40 * 3600, '1w'],
    [201_600, '1w 2d'],
    [3 * 144_000, '3w'],
    [4 * 144_000, '1mo'],
    [576_000 + 30, '1mo 30s'],
    [576_000 + 144_000 + 28_800 + 3600 + 60 + 1, '1mo 1w 1d 1h 1m 1s'],
    [2 * 576_000 + 3 * 144_000 + 4 * 28_800 + 7 * 3600 + 59 * 60 + 59, '2mo 3w 4d 7h 59m 59s'],
    [12 * 576_000, '12mo'],
    [54 * 576_000, '54mo'],
  ])('shows %d seconds as %j', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it('counts in years, with no weeks, a year or more that leaves less over years than over months', () => {
    expect(formatDuration(SECONDS_PER_YEAR)).toBe('1y');
    expect(formatDuration(SECONDS_PER_YEAR + 3600)).toBe('1y 1h');
    expect(formatDuration(SECONDS_PER_YEAR + 2 * 28_800)).toBe('1y 2d');
    expect(formatDuration(2 * SECONDS_PER_YEAR)).toBe('2y');
    expect(formatDuration(2 * SECONDS_PER_YEAR + 5 * 28_800)).toBe('2y 5d');
    // A year leaves 453,600 over whole months: from 122,400 more on, it counts in months and weeks again.
    expect(formatDuration(SECONDS_PER_YEAR + 122_399)).toBe('1y 4d 1h 59m 59s');
    expect(formatDuration(SECONDS_PER_YEAR + 122_400)).toBe('55mo');
    expect(formatDuration(SECONDS_PER_YEAR + 7 * 28_800 + 1)).toBe('55mo 2d 6h 1s');
    expect(formatDuration(SECONDS_PER_YEAR + 576_000)).toBe('55mo 3w 6h');
    expect(formatDuration(55 * 576_000)).toBe('55mo');
    expect(formatDuration(MAX_DURATION)).toBe('3728mo 1w 3h 14m 7s');
  });

  it('shows nothing for zero, as the original gives null', () => {
    expect(formatDuration(0)).toBeNull();
    expect(formatDuration(-0)).toBeNull();
  });

  it('shows a negative duration as its size after a -', () => {
    expect(formatDuration(-3600)).toBe('-1h');
    expect(formatDuration(-5400)).toBe('-1h 30m');
    expect(formatDuration(-30)).toBe('-30s');
    expect(formatDuration(-201_600)).toBe('-1w 2d');
    expect(formatDuration(-SECONDS_PER_YEAR)).toBe('-1y');
  });

  it('takes only whole numbers of seconds', () => {
    for (const seconds of [1.5, -0.5, Number.NaN, Infinity, -Infinity, 2 ** 53, Number.MAX_VALUE])
      expect(formatDuration(seconds)).toBeNull();
  });

  it('writes what parseDuration reads back', () => {
    for (const seconds of [
      1,
      59,
      61,
      3599,
      3600,
      5400,
      28_799,
      28_800,
      143_999,
      144_000,
      575_999,
      576_000,
      1_000_000,
      31_557_599,
      SECONDS_PER_YEAR,
      40_000_000,
      MAX_DURATION,
    ]) {
      expect(parseDuration(formatDuration(seconds)!)).toBe(seconds);
      expect(parseDuration(formatDuration(-seconds)!)).toBe(-seconds);
    }
  });
});

describe('normalizeLabelColor', () => {
  it.each([
    ['#FFAABB', '#FFAABB'],
    ['#ffaabb', '#ffaabb'],
    ['#FfAaBb', '#FfAaBb'],
    ['#abc', '#abc'],
    ['#ABC', '#ABC'],
    ['#000', '#000'],
    ['#428BCA', '#428BCA'],
    ['  #428BCA  ', '#428BCA'],
    ['\t#abc\n', '#abc'],
    ['#FFF\n', '#FFF'],
  ])('keeps the hex colour %j as %j', (input, stored) => {
    expect(normalizeLabelColor(input)).toBe(stored);
  });

  it.each([
    ['red', '#FF0000'],
    ['Red', '#FF0000'],
    ['RED', '#FF0000'],
    [' red ', '#FF0000'],
    ['white', '#FFFFFF'],
    ['black', '#000000'],
    ['aqua', '#00FFFF'],
    ['fuchsia', '#FF00FF'],
    ['gray', '#808080'],
    ['grey', '#808080'],
    ['orange', '#FFA500'],
    ['aliceblue', '#F0F8FF'],
    ['AliceBlue', '#F0F8FF'],
    ['cornflowerblue', '#6495ED'],
    ['darkslategrey', '#2F4F4F'],
    ['lightgoldenrodyellow', '#FAFAD2'],
    ['mediumvioletred', '#C71585'],
    ['rebeccapurple', '#663399'],
    ['yellowgreen', '#9ACD32'],
  ])('turns the colour name %j into %j', (input, stored) => {
    expect(normalizeLabelColor(input)).toBe(stored);
  });

  it.each([
    '',
    '   ',
    '#',
    '#F',
    '#FF',
    '#FFFF',
    '#FFFFF',
    '#FFFFFFF',
    '#FFFFFFFF',
    '#GGG',
    '#12345G',
    'FFAABB',
    'abc',
    '##FFF',
    '# FFF',
    '#FFF\n#FFF',
    '#FFF\u00a0',
    '\u00a0red',
    '#ＦＦＦ',
    '#١٢٣',
    'cyan',
    'magenta',
    'transparent',
    'currentcolor',
    'rgb(255, 0, 0)',
    'hsl(0, 100%, 50%)',
    'light blue',
    'red ish',
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
    '\u212Ahaki',
    'rèd',
    'ＲＥＤ',
    'red\u0000',
  ])('refuses %j', (input) => {
    expect(normalizeLabelColor(input)).toBeNull();
  });

  it('answers a long text at once', () => {
    const started = performance.now();
    expect(normalizeLabelColor(`${' '.repeat(1_000_000)}x`)).toBeNull();
    expect(normalizeLabelColor(`#${'f'.repeat(1_000_000)}`)).toBeNull();
    expect(normalizeLabelColor('a'.repeat(1_000_000))).toBeNull();
    expect(normalizeLabelColor(`${' '.repeat(100_000)}#abc${' '.repeat(100_000)}`)).toBe('#abc');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('textColorFor', () => {
  it.each([
    ['#FFFFFF', '#333333'],
    ['#fff', '#333333'],
    ['#FFECDB', '#333333'],
    ['#A8D695', '#333333'],
    ['#FFFF00', '#333333'],
    ['#00FFFF', '#333333'],
    ['#FF00FF', '#333333'],
    ['#000000', '#FFFFFF'],
    ['#000', '#FFFFFF'],
    ['#428BCA', '#FFFFFF'],
    ['#F0AD4E', '#FFFFFF'],
    ['#FF0000', '#FFFFFF'],
    ['#00FF00', '#FFFFFF'],
    ['#69D100', '#FFFFFF'],
    ['#D1D100', '#FFFFFF'],
  ])('writes on %j in %j', (background, text) => {
    expect(textColorFor(background)).toBe(text);
  });

  it('is dark only past a channel sum of 500', () => {
    // 0xA7 * 3 = 501, 0xA6 + 0xA7 + 0xA7 = 500.
    expect(textColorFor('#A7A7A7')).toBe('#333333');
    expect(textColorFor('#A6A7A7')).toBe('#FFFFFF');
    expect(textColorFor('#a7a7a7')).toBe('#333333');
    // 0xFF + 0xF5 + 0x00 = 500; 0xFF + 0xF6 = 501.
    expect(textColorFor('#FFF500')).toBe('#FFFFFF');
    expect(textColorFor('#FFF600')).toBe('#333333');
  });

  it('reads a 3-digit colour with each digit twice', () => {
    // #aab = 0xaa + 0xaa + 0xbb = 527; read as single digits (0xa + 0xa + 0xb = 31) it would get white.
    expect(textColorFor('#aab')).toBe('#333333');
    expect(textColorFor('#aab')).toBe(textColorFor('#aaaabb'));
    // #a99 = 0xaa + 0x99 + 0x99 = 476.
    expect(textColorFor('#a99')).toBe('#FFFFFF');
  });

  it('gives white for what is no hex colour', () => {
    for (const text of ['', '#', 'white', '#FFFFFFF', '#GGG', 'FFFFFF']) expect(textColorFor(text)).toBe('#FFFFFF');
  });

  it('agrees with the colours normalizeLabelColor stores', () => {
    expect(textColorFor(normalizeLabelColor('white')!)).toBe('#333333');
    expect(textColorFor(normalizeLabelColor('navy')!)).toBe('#FFFFFF');
    expect(textColorFor(normalizeLabelColor('lightgoldenrodyellow')!)).toBe('#333333');
  });
});
