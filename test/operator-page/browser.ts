import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's Chromium, headless. Never skipped: where it cannot start the test fails and says how to
 * install it (.ci/run installs it when missing).
 */
export async function launchChromium(): Promise<Browser> {
  try {
    return await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (err) {
    throw new Error(`could not start Chromium at ${CHROMIUM} (apt-get install -y chromium): ${(err as Error).message}`);
  }
}
