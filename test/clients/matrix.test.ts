// The client matrix as a node:test file (run by `npm run test:clients`, not by `npm test`): runs
// every family × scenario against tkafka and Apache Kafka 4.4.0 once, prints the table, then one
// test per family fails when the family could not be set up or when a scenario passes on Kafka and
// does not pass on tkafka (the failures are listed in the test's error).
//
// Environment (optional): TKAFKA_CLIENTS_FAMILY=a,b and TKAFKA_CLIENTS_SCENARIO=x,y narrow the run.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FAMILIES } from './families.js';
import { ORACLE_VERSION, runMatrix, type MatrixResult } from './run.js';

const list = (v: string | undefined): string[] | undefined =>
  v
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const familyNames = list(process.env.TKAFKA_CLIENTS_FAMILY);
const scenarios = list(process.env.TKAFKA_CLIENTS_SCENARIO);
const families = familyNames ? FAMILIES.filter((f) => familyNames.includes(f.name)) : FAMILIES;
if (familyNames && families.length !== familyNames.length) {
  throw new Error(`TKAFKA_CLIENTS_FAMILY names an unknown family: ${familyNames.join(', ')}`);
}

let result: MatrixResult | null = null;

before(
  async () => {
    result = await runMatrix({ families: families.map((f) => f.name), scenarios });
    const { table, grid, security, summary, jsonPath } = result;
    const sec = security ? `Security (mechanisms that passed):\n\n${security}\n\n` : '';
    process.stdout.write(
      `\n${table}\n\nThe same, cells tkafka / Kafka:\n\n${grid}\n\n${sec}${summary}\nresults: ${jsonPath}\n\n`,
    );
  },
  // Each run is bounded (90 s); this only guards against a hang of the runner itself.
  { timeout: 4 * 60 * 60_000 },
);

for (const f of families) {
  test(`${f.name}: every scenario that passes on Kafka ${ORACLE_VERSION} passes on tkafka`, () => {
    assert.ok(result, 'the matrix did not run');
    const fam = result.families.find((x) => x.family === f.name);
    assert.ok(fam, `${f.name} is not in the results`);
    assert.equal(fam.missing, null, `${f.name} could not be set up: ${fam.missing}`);
    const failures = result.tkafkaOnlyFailures.filter((d) => d.family === f.name);
    const text = failures.map((d) => `${d.scenario} (tkafka ${d.tkafka}):\n    ${d.detail.split('\n').join('\n    ')}`);
    assert.equal(
      failures.length,
      0,
      `${f.name} (${fam.version}): ${failures.length} scenario(s) pass on Kafka and not on tkafka:\n${text.join('\n')}`,
    );
  });
}
