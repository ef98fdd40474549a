/** Where push reports its progress: stderr, so stdout stays clean for --json. */
export interface ProgressOutput {
  write(text: string): void;
  /** a terminal gets a redrawn bar; a CI log gets one plain line per step */
  isTTY?: boolean;
  columns?: number;
}

const BAR_WIDTH = 24;

export const formatBytes = (bytes: number) => {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
};

/** One file's upload: a bar redrawn in place on a terminal, else a line when it starts and one when it is sent. */
export function fileProgress(output: ProgressOutput, label: string) {
  let lastDrawn = -1;
  let started = false;
  return {
    update(sent: number, total: number) {
      if (!output.isTTY) {
        if (!started) output.write(`uploading ${label} (${formatBytes(total)})\n`);
        started = true;
        return;
      }
      const percent = total ? Math.floor((sent / total) * 100) : 100;
      if (percent === lastDrawn) return;
      lastDrawn = percent;
      const filled = Math.round((percent / 100) * BAR_WIDTH);
      const name = label.length > 40 ? `…${label.slice(-39)}` : label;
      output.write(`\r\x1b[2K${name} [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(percent).padStart(3)}% ${formatBytes(sent)}/${formatBytes(total)}`);
    },
    /** ends the bar's line with the outcome */
    done(outcome: string) {
      output.write(output.isTTY ? `\r\x1b[2K${label}: ${outcome}\n` : `${label}: ${outcome}\n`);
    },
  };
}
