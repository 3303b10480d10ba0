// A small Playwright suite as users write them, run by the real test runner
// (`npx playwright test`) with the browser launched through cdpproxy's
// wrapper: the one line that matters is launchOptions.executablePath.
// tests/integration/80-wrapper-playwright.t and 84-audit.t run it, and the
// README's audit walkthrough. Its server is RIG_URL, or one of its own
// (global-setup.js); RIG_JUNIT names a JUnit file to write.
const os = require('node:os');
const path = require('node:path');
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: './specs',
  globalSetup: require.resolve('./global-setup'),
  reporter: process.env.RIG_JUNIT ? [['line'], ['junit', { outputFile: process.env.RIG_JUNIT }]] : 'line',
  workers: 2,
  retries: 0,
  timeout: 60000,
  outputDir: process.env.RIG_OUT || path.join(os.tmpdir(), 'cdpproxy-rig-results'),
  use: {
    headless: true,
    baseURL: process.env.RIG_URL,
    launchOptions: { executablePath: process.env.CDPPROXY_BROWSER },
  },
});
