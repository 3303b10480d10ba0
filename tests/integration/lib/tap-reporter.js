// node:test reporter that prints TAP prove can parse: failure details as
// "# " comments instead of the YAML blocks of Node's own TAP reporter, whose
// "|-" scalars make prove's YAMLish reader give up ("No plan found").
// A failure's details also go to stderr: prove shows stderr but not
// comments, so a failure that does not come back still says why it failed.
// With TEST_FAILURES set (make test, asan, check) they are also appended to
// that file, which make prints after prove's summary when a test failed: a
// CI log that keeps only its tail still says why.
'use strict';
const fs = require('node:fs');
const util = require('node:util');

function indent(nesting) {
  return '    '.repeat(nesting);
}

function comment(nesting, text) {
  return String(text)
    .split('\n')
    .map((l) => `${indent(nesting)}# ${l}`.trimEnd())
    .join('\n') + '\n';
}

// The error a test failed with: node:test wraps it in ERR_TEST_FAILURE.
function describeError(err) {
  if (!err) return 'failed (no error object)';
  const inner = err.code === 'ERR_TEST_FAILURE' && err.cause ? err.cause : err;
  if (inner instanceof Error) {
    const stack = (inner.stack || String(inner))
      .split('\n')
      .filter((l) => !/\(node:internal\//.test(l) && !/^\s+at node:internal\//.test(l));
    let text = stack.join('\n');
    if (inner.cause) text += `\ncause: ${util.inspect(inner.cause, { depth: 3 })}`;
    return text;
  }
  return util.inspect(inner, { depth: 4 });
}

function directive(data) {
  if (data.skip !== undefined) return ` # SKIP${typeof data.skip === 'string' ? ' ' + data.skip : ''}`;
  if (data.todo !== undefined) return ` # TODO${typeof data.todo === 'string' ? ' ' + data.todo : ''}`;
  return '';
}

function name(data) {
  return String(data.name).replace(/#/g, '\\#').replace(/\n/g, ' ');
}

module.exports = async function* tapReporter(source) {
  yield 'TAP version 13\n';
  for await (const { type, data } of source) {
    switch (type) {
      case 'test:pass':
        yield `${indent(data.nesting)}ok ${data.testNumber} - ${name(data)}${directive(data)}\n`;
        break;
      case 'test:fail': {
        const why = describeError(data.details && data.details.error);
        yield `${indent(data.nesting)}not ok ${data.testNumber} - ${name(data)}${directive(data)}\n`;
        yield comment(data.nesting + 1, why);
        if (data.todo === undefined) {
          const text = `${data.file || ''}: not ok ${data.testNumber} - ${name(data)}\n${why}\n`;
          process.stderr.write(text);
          if (process.env.TEST_FAILURES) fs.appendFileSync(process.env.TEST_FAILURES, text);
        }
        break;
      }
      case 'test:plan':
        yield `${indent(data.nesting)}1..${data.count}\n`;
        break;
      case 'test:diagnostic':
        yield comment(data.nesting, data.message);
        break;
      case 'test:stdout':
      case 'test:stderr':
        yield comment(data.nesting || 0, String(data.message).replace(/\n$/, ''));
        break;
      default:
        break;
    }
  }
};
