// Starts the rig's server (../server.js) unless RIG_URL names one; the
// workers read RIG_URL, which they inherit from this process.
const { start } = require('../server');

module.exports = async () => {
  if (process.env.RIG_URL) return undefined;
  const server = await start();
  process.env.RIG_URL = server.url;
  return () => server.close();
};
