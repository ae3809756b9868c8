// BCDice as an oracle for the edition tests.
//
// Reads one JSON object on standard input:
//   {"system": "Cthulhu7th", "cases": [{"command": "CC1<=65", "rands": [3, 5, 7]}, ...]}
// and answers on standard output:
//   {"version": "3.16.1", "results": [{"command", "text", "success", "failure", "critical",
//     "fumble", "rands": [[value, sides], ...], "unused", "error"}, ...]}
// `rands` are the values BCDice's randomizer returns, call by call, as in BCDice's own test
// data (a d10 call answers 1..10, a d100 call 1..100; like BCDice's own harness the values are
// returned as given, unchecked). A command that asks for more values than given answers with
// `error` set; `unused` counts the values it left.
//
//   node bcdice_oracle.mjs --test-data Cthulhu7th   prints the package's own test cases
//   node bcdice_oracle.mjs --version                prints the BCDice version
//
// bcdice is installed beside this file by `npm ci --prefix tests/references/node` (.ci/run).

import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(new URL("./node/package.json", import.meta.url));
const bcdice = require("bcdice");
const VERSION = require("bcdice/lib/version").default;

function testData(system) {
  const all = JSON.parse(readFileSync(require.resolve("bcdice/lib/bcdice/test_data.json"), "utf8"));
  if (!(system in all)) throw new Error(`no test data for ${system}`);
  return all[system].test;
}

// The randomizer's one entry point for a die is $random(sides); the package's own tests stub
// exactly that, so replacing it gives the same mocked runs as BCDice's test suite.
function mock(game, rands) {
  const queue = [...rands];
  let asked = 0;
  game.randomizer.$random = (sides) => {
    asked += 1;
    if (queue.length === 0) throw new Error(`unexpected die ${asked} (d${sides}): no value given`);
    return queue.shift();
  };
  return () => queue.length;
}

async function run(system, cases) {
  const loader = new bcdice.DynamicLoader();
  const GameSystem = await loader.dynamicLoad(system);
  return cases.map(({ command, rands }) => {
    const out = { command, text: null, success: false, failure: false, critical: false, fumble: false, rands: [], unused: 0, error: null };
    try {
      const game = new GameSystem(command);
      const left = mock(game, rands ?? []);
      const res = game.eval();
      if (res) {
        Object.assign(out, {
          text: res.text,
          success: res.success,
          failure: res.failure,
          critical: res.critical,
          fumble: res.fumble,
          rands: res.rands,
        });
      }
      out.unused = left();
    } catch (err) {
      out.error = String(err && err.message ? err.message : err);
    }
    return out;
  });
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--version") {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (args[0] === "--test-data") {
    process.stdout.write(JSON.stringify({ version: VERSION, tests: testData(args[1]) }));
    return;
  }
  const request = JSON.parse(readFileSync(0, "utf8"));
  const results = await run(request.system, request.cases);
  process.stdout.write(JSON.stringify({ version: VERSION, results }));
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
