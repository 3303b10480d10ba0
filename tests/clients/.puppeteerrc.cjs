// The puppeteer package's install would download a Chrome; the tests use
// Debian's /usr/bin/chromium, so no download, whoever runs `npm ci` here.
module.exports = { skipDownload: true };
