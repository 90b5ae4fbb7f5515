import type { CheckResult } from './checks.ts';

/**
 * The report of `hindsight check`: one line per check (pass, FAIL, not exercised) with what was
 * seen, and a summary; or the same as JSON with `--json`.
 */
export interface CheckReport {
  strategy: string;
  scenario: { startTime: string; endTime: string; instruments: string[] };
  checks: CheckResult[];
  faults: number;
}

const MARK: Record<CheckResult['verdict'], string> = {
  pass: 'pass',
  FAIL: 'FAIL',
  'not exercised': 'n/a ',
};

export function textReport(report: CheckReport): string {
  const lines = [
    `hindsight check ${report.strategy}`,
    `  scenario: ${report.scenario.instruments.join(', ')} ${report.scenario.startTime} -> ${report.scenario.endTime}`,
    '',
  ];
  const width = Math.max(...report.checks.map((c) => c.id.length));
  for (const check of report.checks) {
    lines.push(`  ${MARK[check.verdict]}  ${check.id.padEnd(width)}  ${check.title}`);
    const detail = check.verdict === 'not exercised' ? `not exercised: ${check.detail}` : check.detail;
    lines.push(`        ${' '.repeat(width)}  ${detail}`);
  }
  const skipped = report.checks.filter((c) => c.verdict === 'not exercised').length;
  const passed = report.checks.filter((c) => c.verdict === 'pass').length;
  lines.push(
    '',
    report.faults === 0
      ? `No protocol faults: ${passed} passed, ${skipped} not exercised.`
      : `${report.faults} protocol fault${report.faults === 1 ? '' : 's'}: ${passed} passed, ${skipped} not exercised.`,
  );
  return `${lines.join('\n')}\n`;
}

export const jsonReport = (report: CheckReport): string => `${JSON.stringify(report, null, 2)}\n`;
