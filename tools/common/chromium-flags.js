// The flags every headless Chromium the tests and bench tools start gets:
// proxy/chromium/launch.c's base_flags (cdpproxy --launch, cdpbench's trials),
// which 41-cdpbench-quick.t checks this list against (report.json records
// them). Read by tests/integration/lib/harness.js, tools/bench-pipe.js,
// tools/bench-states.js and tools/bench-proxy.sh.
'use strict';
module.exports = Object.freeze([
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
  // No omnibox popup preloaded: 2 of a start's 4.4 CPU-s (launch.c says how measured).
  '--disable-features=WebUIOmniboxAimPopup,WebUIOmniboxPopup',
]);
