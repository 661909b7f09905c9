/**
 * Time tracking's durations (`/estimate 1w 2d`, `POST …/add_spent_time` with `duration=-30m`, `human_time_estimate`),
 * as the original reads and writes them: Gitlab::TimeTrackingFormatter, which hands them to ChronicDuration on a
 * working calendar of 8-hour days, 5-day weeks and 4-week months.
 */

export const SECONDS_PER_MINUTE = 60;
export const SECONDS_PER_HOUR = 60 * SECONDS_PER_MINUTE;
/** A working day (ChronicDuration's `hours_per_day`, which GitLab sets to 8). */
export const SECONDS_PER_DAY = 8 * SECONDS_PER_HOUR;
/** A working week (`days_per_week` 5). */
export const SECONDS_PER_WEEK = 5 * SECONDS_PER_DAY;
/**
 * Four working weeks, as the docs have it ("1mo = 4w") and as the output always counted. GitLab 10.x's parser,
 * plain ChronicDuration 0.10.6, still took `1mo` as 30 working days; Gitlab::Patch::ChronicDuration, then
 * `days_per_month: 20`, made the parser agree with the rest, and so does this one.
 */
export const SECONDS_PER_MONTH = 4 * SECONDS_PER_WEEK;
/** ChronicDuration's year: 365.25 calendar days whatever the working calendar, in `1y` as in the output. */
export const SECONDS_PER_YEAR = 31_557_600;
/** The most a duration may come to either way: time_estimate and time_spent are 32-bit integer columns. */
export const MAX_DURATION = 2 ** 31 - 1;

/** Past this many characters a text is not taken for a duration, so no caller pays for reading a long one. */
const MAX_TEXT = 100;

/** The words ChronicDuration takes for each unit (case aside). */
const UNIT_WORDS: [seconds: number, words: string[]][] = [
  [1, ['s', 'sec', 'secs', 'second', 'seconds']],
  [SECONDS_PER_MINUTE, ['m', 'min', 'mins', 'minute', 'minutes']],
  [SECONDS_PER_HOUR, ['h', 'hr', 'hrs', 'hour', 'hours']],
  [SECONDS_PER_DAY, ['d', 'dy', 'day', 'days']],
  [SECONDS_PER_WEEK, ['w', 'wk', 'wks', 'week', 'weeks']],
  [SECONDS_PER_MONTH, ['mo', 'mos', 'month', 'months']],
  [SECONDS_PER_YEAR, ['y', 'yr', 'yrs', 'year', 'years']],
];
const UNITS = new Map(UNIT_WORDS.flatMap(([seconds, words]) => words.map((word) => [word, seconds] as const)));

/** Whitespace as Ruby splits words on it: ASCII only, so that a no-break space is no separator. */
const SPACE = '[ \\t\\n\\v\\f\\r]';
/** The text inside its whitespace, with its sign apart (the original strips one leading `-` and negates the rest). */
const SIGNED = new RegExp(`^${SPACE}*(-?)${SPACE}*(.*?)${SPACE}*$`, 's');
/** A part: a decimal number (`2`, `1.5`, `.5`; ASCII digits only), then, spaced or not, its unit word. */
const PART = new RegExp(`([0-9]+(?:\\.[0-9]+)?|\\.[0-9]+)${SPACE}*([A-Za-z]*)`, 'y');
/** Between parts: nothing (`3h30m`), spaces, a comma, or ChronicDuration's joining words (`1 hour and 30 minutes`). */
const SEPARATOR = new RegExp(`${SPACE}*(?:,${SPACE}*)?(?:(?:and|with|plus)${SPACE}+)?`, 'iy');
/** Exact arithmetic on the decimals: numbers are read in units of 10^-MAX_TEXT, as none has more decimal places. */
const SCALE = 10n ** BigInt(MAX_TEXT);

/**
 * The seconds a duration text comes to, or null when it is none or comes to more than MAX_DURATION either way.
 * The parts add up (`1w 2d`, `3h30m`, `2 days`, `1 hour and 30 minutes`), a leading `-` negates the whole
 * (add_spent_time subtracts it), and fractions of a second are dropped toward zero as the integer columns drop them.
 * A lone number is hours: TimeTrackingFormatter parses with `default_unit: 'hours'` in every version, 10.x and 11.x
 * included. Zero is 0, where ChronicDuration answers nil; either way the caller has nothing to add.
 *
 * Stricter than ChronicDuration, which drops the words it does not know and gives an unnumbered unit a 1: here
 * `3x`, `h`, `--1h` and `1h-` are no durations, nor is a number without a unit among other parts (the original
 * reads `1h 30` as 31 hours).
 */
export function parseDuration(text: string): number | null {
  if (text.length > MAX_TEXT) return null;
  const [, sign, body] = SIGNED.exec(text)!;
  let total = 0n;
  let position = 0;
  do {
    const first = position === 0;
    if (!first) {
      SEPARATOR.lastIndex = position;
      SEPARATOR.test(body);
      position = SEPARATOR.lastIndex;
    }
    PART.lastIndex = position;
    const part = PART.exec(body);
    if (!part) return null;
    position = PART.lastIndex;
    const [, number, word] = part;
    const unit = word ? UNITS.get(word.toLowerCase()) : first && position === body.length ? SECONDS_PER_HOUR : undefined;
    if (!unit) return null;
    const [whole, fraction = ''] = number.split('.');
    total += (BigInt(whole || '0') * SCALE + BigInt(fraction || '0') * 10n ** BigInt(MAX_TEXT - fraction.length)) * BigInt(unit);
  } while (position < body.length);
  const seconds = total / SCALE;
  if (seconds > BigInt(MAX_DURATION)) return null;
  return sign && seconds ? -Number(seconds) : Number(seconds);
}

/** The short format's units, largest first. */
const CALENDAR: [suffix: string, seconds: number][] = [
  ['mo', SECONDS_PER_MONTH],
  ['w', SECONDS_PER_WEEK],
  ['d', SECONDS_PER_DAY],
  ['h', SECONDS_PER_HOUR],
  ['m', SECONDS_PER_MINUTE],
  ['s', 1],
];
/**
 * ChronicDuration's other count (see formatDuration): years, then days and less. It counts months too, but what it
 * leaves over whole years there is always less than a month, and weeks it does not count.
 */
const YEARS: [suffix: string, seconds: number][] = [['y', SECONDS_PER_YEAR], ...CALENDAR.slice(2)];

/**
 * A duration as the API shows it in `human_time_estimate` and `human_total_time_spent`: ChronicDuration's short
 * format with weeks, the counts that are not zero joined by spaces (`1h 30m`, `1w 2d`, `1mo 30s`). Zero is null, as
 * the original has it; so is anything but a whole number of seconds. A negative duration is its size with a `-`
 * (`-1h`), as TimeTrackingFormatter's `negative_output` has it; before that GitLab gave negatives unconverted
 * (`-3600s`), but totals kept at zero or more never showed one.
 *
 * ChronicDuration counts in years (`1y 2d`) instead, with no weeks, when the duration is a year or more and leaves
 * less over whole years than over whole months; kept, as the output of the original it is.
 */
export function formatDuration(seconds: number): string | null {
  if (!Number.isSafeInteger(seconds) || seconds === 0) return null;
  if (seconds < 0) return `-${formatDuration(-seconds)}`;
  const inYears = seconds >= SECONDS_PER_YEAR && seconds % SECONDS_PER_YEAR < seconds % SECONDS_PER_MONTH;
  let rest = seconds;
  const parts: string[] = [];
  for (const [suffix, size] of inYears ? YEARS : CALENDAR) {
    const count = Math.floor(rest / size);
    rest %= size;
    if (count) parts.push(`${count}${suffix}`);
  }
  return parts.join(' ');
}
