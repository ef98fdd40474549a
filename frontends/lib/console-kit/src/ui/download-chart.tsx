import { useId } from 'react';

export interface ChartLine {
  label: string;
  /** one count per bucket */
  counts: number[];
}

/** colours of the stacked lines in order; lines past the last are added up as "Other" */
const LINE_COLOURS = 5;
const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 14;

const MONTH_DAY = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** "2026-11-24" → "Nov 24"; "2026-11-24T13" → "Nov 24, 13:00" (UTC, as the server buckets) */
export function bucketLabel(bucket: string): string {
  const [day, hour] = bucket.split('T');
  const date = MONTH_DAY.format(new Date(`${day}T00:00:00Z`));
  return hour === undefined ? date : `${date}, ${hour}:00`;
}

/** at most LINE_COLOURS lines: the busiest ones stay, the rest become "Other" */
export function chartLines(lines: readonly ChartLine[]): ChartLine[] {
  if (lines.length <= LINE_COLOURS) return [...lines];
  const kept = lines.slice(0, LINE_COLOURS - 1);
  const rest = lines.slice(LINE_COLOURS - 1);
  return [...kept, { label: 'Other', counts: rest[0].counts.map((_, index) => rest.reduce((sum, line) => sum + line.counts[index], 0)) }];
}

/**
 * Downloads over time as stacked bars drawn in SVG, with a text summary for screen readers
 * and the same figures as a table (behind "Show as table") for anyone who prefers numbers.
 */
export function DownloadChart({ title, buckets, lines, unit = 'day' }: { title: string; buckets: string[]; lines: ChartLine[]; unit?: 'day' | 'hour' }) {
  const id = useId();
  const shown = chartLines(lines);
  const totals = buckets.map((_, index) => shown.reduce((sum, line) => sum + line.counts[index], 0));
  const total = totals.reduce((a, b) => a + b, 0);
  const highest = Math.max(1, ...totals);
  const busiest = totals.indexOf(Math.max(...totals));
  const slot = WIDTH / Math.max(1, buckets.length);
  const plot = HEIGHT - AXIS;
  const summary =
    total === 0
      ? `No downloads in the last ${buckets.length} ${unit === 'day' ? 'days' : 'hours'}.`
      : `${total} ${total === 1 ? 'download' : 'downloads'} in the last ${buckets.length} ${unit === 'day' ? 'days' : 'hours'}; the most, ${totals[busiest]}, on ${bucketLabel(buckets[busiest])}.`;
  return (
    <figure className="pk-chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`} className="pk-chart__title">
        {title}
      </figcaption>
      <p id={`${id}-summary`} className="pk-chart__summary">
        {summary}
      </p>
      <svg className="pk-chart__plot" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-labelledby={`${id}-title ${id}-summary`}>
        <line x1={0} x2={WIDTH} y1={plot} y2={plot} className="pk-chart__axis" />
        {buckets.map((bucket, index) => {
          let top = plot;
          return (
            <g key={bucket}>
              <title>{`${bucketLabel(bucket)}: ${totals[index]}`}</title>
              {shown.map((line, lineIndex) => {
                const height = (line.counts[index] / highest) * (plot - 4);
                top -= height;
                return height > 0 ? <rect key={line.label} className={`pk-chart__bar pk-chart__bar--${lineIndex}`} x={index * slot + slot * 0.15} width={slot * 0.7} y={top} height={height} /> : null;
              })}
            </g>
          );
        })}
      </svg>
      <div className="pk-chart__scale pk-muted" aria-hidden="true">
        <span>{buckets.length ? bucketLabel(buckets[0]) : ''}</span>
        <span>max {highest === 1 && total === 0 ? 0 : highest} per {unit}</span>
        <span>{buckets.length ? bucketLabel(buckets[buckets.length - 1]) : ''}</span>
      </div>
      {shown.length > 1 && (
        <ul className="pk-chart__legend" aria-label="Legend">
          {shown.map((line, index) => (
            <li key={line.label}>
              <span className={`pk-chart__swatch pk-chart__bar--${index}`} aria-hidden="true" /> {line.label}
            </li>
          ))}
        </ul>
      )}
      <details className="pk-chart__table">
        <summary>Show as table</summary>
        <div className="pk-table-wrap">
          <table className="pk-table" aria-label={`${title} (table)`}>
            <thead>
              <tr>
                <th scope="col">{unit === 'day' ? 'Day (UTC)' : 'Hour (UTC)'}</th>
                {shown.length > 1 && shown.map((line) => <th scope="col" key={line.label}>{line.label}</th>)}
                <th scope="col">Downloads</th>
              </tr>
            </thead>
            <tbody>
              {buckets.map((bucket, index) => (
                <tr key={bucket}>
                  <th scope="row">{bucketLabel(bucket)}</th>
                  {shown.length > 1 && shown.map((line) => <td key={line.label}>{line.counts[index]}</td>)}
                  <td>{totals[index]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
