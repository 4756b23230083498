// Loads CSV files into an in-memory DuckDB and times one SQL query (relational benchmarks).
// usage: node duckdb_query.mjs <threads: N|default> <reps> <query.sql> name=path.csv ...
// DuckDB comes from npm (`npm install @duckdb/node-api` in $LOOM_DUCKDB_DIR, default
// ./node_modules's parent). Prints `load_ms <t>`, `query_ms <median>`, then `row <csv>` lines.
// SPDX-License-Identifier: BSL-1.0
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [threads, repsArg, sqlFile, ...tables] = process.argv.slice(2);
const dir = process.env.LOOM_DUCKDB_DIR ?? process.cwd();
const { DuckDBInstance } = await import(join(dir, 'node_modules/@duckdb/node-api/lib/index.js'));
const options = threads === 'default' ? {} : { threads: String(threads) };
const instance = await DuckDBInstance.create(':memory:', options);
const con = await instance.connect();

let t0 = performance.now();
for (const spec of tables) {
  const [name, path] = spec.split('=');
  await con.run(`CREATE TABLE ${name} AS SELECT * FROM read_csv('${path}', header = true)`);
}
console.log(`load_ms ${(performance.now() - t0).toFixed(3)}`);

const sql = readFileSync(sqlFile, 'utf8');
const times = [];
let rows = [];
for (let r = 0; r < Number(repsArg); ++r) {
  t0 = performance.now();
  const result = await con.runAndReadAll(sql);
  rows = result.getRows();
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
console.log(`query_ms ${times[Math.floor(times.length / 2)].toFixed(3)}`);
for (const row of rows) console.log('row ' + row.map((v) => String(v)).join(','));
