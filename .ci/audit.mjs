// Fails CI on any high or critical advisory in production dependencies. When the registry's audit
// endpoint cannot be reached (this workplace's registry mirror answers 405 to its POST), says so
// loudly and passes: a missing answer is not a clean bill of health, and the note says so.
import { execFileSync } from 'node:child_process';

let out = '';
try {
  out = execFileSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
} catch (e) {
  out = e.stdout ?? '';
}
let report;
try {
  report = JSON.parse(out);
} catch {
  console.log('npm audit: no readable answer; audit NOT performed');
  process.exit(0);
}
if (report.statusCode || report.message) {
  console.log(`npm audit: endpoint unavailable (${report.statusCode ?? ''} ${report.message ?? ''}); audit NOT performed`);
  process.exit(0);
}
const v = report.metadata?.vulnerabilities ?? {};
const bad = (v.high ?? 0) + (v.critical ?? 0);
console.log(`npm audit: ${JSON.stringify(v)}`);
if (bad > 0) {
  console.error(`npm audit: ${bad} high or critical finding(s) in production dependencies`);
  process.exit(1);
}
