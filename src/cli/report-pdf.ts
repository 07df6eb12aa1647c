/**
 * `report --format pdf` (docs/reports.md#pdf): the HTML report printed by a local Chromium, through
 * playwright-core when it is installed, else the `chromium --headless --print-to-pdf` binary. No
 * Chromium → REPORT_PDF_UNAVAILABLE with what to install; nothing is downloaded.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { BrowserType } from 'playwright-core';
import { PacksyncError } from '../util/errors.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/snap/bin/chromium'];
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'];

/** `PACKSYNC_CHROMIUM`, else the usual install paths, else `chromium` on PATH; null when none. */
export function findChromium(env: NodeJS.ProcessEnv): string | null {
  if (env.PACKSYNC_CHROMIUM) return existsSync(env.PACKSYNC_CHROMIUM) ? env.PACKSYNC_CHROMIUM : null;
  for (const c of CANDIDATES) if (existsSync(c)) return c;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

export async function printPdf(html: string, env: NodeJS.ProcessEnv): Promise<Buffer> {
  const exe = findChromium(env);
  // A Chromium the user named is the one used: one that is missing is said, not replaced by another.
  const looked = env.PACKSYNC_CHROMIUM
    ? `PACKSYNC_CHROMIUM names ${env.PACKSYNC_CHROMIUM}, which does not exist; unset it to use /usr/bin/chromium or chromium on PATH`
    : 'looked for PACKSYNC_CHROMIUM, /usr/bin/chromium and chromium on PATH';
  if (!exe)
    throw new PacksyncError(
      'REPORT_PDF_UNAVAILABLE',
      `no local Chromium to print the PDF with (${looked}); install one (apt-get install chromium) or use --format html and print that page`,
    );
  const pw = await import('playwright-core').catch(() => null);
  return pw ? viaPlaywright(pw.chromium, exe, html) : viaBinary(exe, html);
}

async function viaPlaywright(chromium: BrowserType, exe: string, html: string): Promise<Buffer> {
  const browser = await chromium.launch({ executablePath: exe, args: ARGS });
  try {
    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.setContent(html, { waitUntil: 'load' });
    return await page.pdf({ preferCSSPageSize: true, printBackground: true });
  } finally {
    await browser.close();
  }
}

async function viaBinary(exe: string, html: string): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'packsync-report-'));
  try {
    const src = join(dir, 'report.html');
    const out = join(dir, 'report.pdf');
    await writeFile(src, html);
    await new Promise<void>((resolve, reject) => {
      const p = spawn(exe, [...ARGS, '--no-pdf-header-footer', `--print-to-pdf=${out}`, `file://${src}`], { stdio: 'ignore' });
      p.on('error', reject);
      p.on('exit', (code) =>
        code === 0 ? resolve() : reject(new PacksyncError('REPORT_PDF_UNAVAILABLE', `${exe} exited ${code} printing the PDF`)),
      );
    });
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
