import { access } from 'node:fs/promises';
import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium under playwright-core, for the suites that drive a browser (the web app, the
 * HTML report): the flags machine-notes lists for a headless run without a sandbox or network
 * chatter. Never `playwright install`.
 */
export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Launches Chromium, first waiting for it: it may still be installing (apt) when the suite starts. */
export async function launchChromium(): Promise<Browser> {
  await waitForChromium();
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

async function waitForChromium(): Promise<void> {
  // Up to three minutes.
  for (let i = 0; i < 180; i++) {
    try {
      await access(CHROMIUM);
      return;
    } catch {
      if (i === 0) console.log(`waiting for ${CHROMIUM} to be installed`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  throw new Error(`${CHROMIUM} is not installed`);
}
