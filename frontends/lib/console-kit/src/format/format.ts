// Display formats fixed by the console spec §9.

const SIZE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;
const SIZE_STEP = 1024;

/** Sizes in steps of 1024 with at most two decimals: 1536 → "1.5 KB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 B';
  const exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(SIZE_STEP)), SIZE_UNITS.length - 1);
  const value = bytes / SIZE_STEP ** exponent;
  return `${Number.parseFloat(value.toFixed(2))} ${SIZE_UNITS[exponent]}`;
}

const DATE_FORMAT = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
});

/** en-US short month, day, year and time: "Mar 4, 2025, 2:05 PM". Absent dates read "Never". */
export function formatDate(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return 'Never';
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return 'Never';
  return DATE_FORMAT.format(date);
}

/** Usage as a rounded percentage; an unknown or zero limit counts as 0 %. */
export function usagePercent(used: number, limit: number): number {
  if (!(limit > 0) || !(used > 0)) return 0;
  return Math.round((used / limit) * 100);
}

/** The bar never overflows its track, even when usage exceeds the limit. */
export function usageBarWidth(percent: number): number {
  return Math.min(Math.max(percent, 0), 100);
}

const MINUTE_MS = 60_000;
const TIME_LEFT_UNITS = [
  { ms: 24 * 60 * MINUTE_MS, name: 'day' },
  { ms: 60 * MINUTE_MS, name: 'hour' },
  { ms: MINUTE_MS, name: 'minute' },
] as const;

/** Time until `until`, in its largest whole unit: "6 days left", "1 hour left", "less than a minute left". */
export function formatTimeLeft(until: string, now: number = Date.now()): string {
  const left = Date.parse(until) - now;
  for (const unit of TIME_LEFT_UNITS) {
    const count = Math.floor(left / unit.ms);
    if (count >= 1) return `${count} ${unit.name}${count === 1 ? '' : 's'} left`;
  }
  return 'less than a minute left';
}
