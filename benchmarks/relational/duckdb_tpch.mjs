// Loads CSV files into an in-memory DuckDB and times several SQL queries (benchmarks/relational
// sql_tpch): each query's first run after the load, then its best of `reps` more runs (`nan`
// with reps 0: one query alone after a load is a cold run).
// usage: node duckdb_tpch.mjs <threads> <reps> <budget_ms> table=path:col,col,... ... \
//        query=name:file.sql ...
// DuckDB comes from npm (`npm install @duckdb/node-api` in $LOOM_DUCKDB_DIR). Prints
// `load_ms <t>`, per query `query <name> <first_ms> <best_ms> <runs>`, and its result rows as
// `row <name>` then the cells separated by tabs. Repeats stop early once a query's repeats have
// taken `budget_ms`.
// SPDX-License-Identifier: BSL-1.0
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [threads, repsArg, budgetArg, ...specs] = process.argv.slice(2);
const dir = process.env.LOOM_DUCKDB_DIR ?? process.cwd();
const { DuckDBInstance } = await import(join(dir, 'node_modules/@duckdb/node-api/lib/index.js'));
const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const con = await instance.connect();

let t0 = performance.now();
for (const spec of specs.filter((s) => s.startsWith('table='))) {
  const [name, rest] = spec.slice(6).split('=');
  const [path, columns] = rest.split(':');
  await con.run(`CREATE TABLE ${name} AS SELECT ${columns} FROM read_csv('${path}', header = true)`);
}
console.log(`load_ms ${(performance.now() - t0).toFixed(3)}`);

for (const spec of specs.filter((s) => s.startsWith('query='))) {
  const [name, file] = spec.slice(6).split(':');
  const sql = readFileSync(file, 'utf8');
  t0 = performance.now();
  const result = await con.runAndReadAll(sql);
  const first = performance.now() - t0;
  const rows = result.getRows();
  let best = Infinity, runs = 0, spent = 0;
  while (runs < Number(repsArg) && (runs === 0 || spent < Number(budgetArg))) {
    t0 = performance.now();
    await con.runAndReadAll(sql);
    const t = performance.now() - t0;
    best = Math.min(best, t);
    spent += t;
    ++runs;
  }
  console.log(`query ${name} ${first.toFixed(3)} ${runs ? best.toFixed(3) : 'nan'} ${runs}`);
  for (const row of rows) console.log(`row ${name}\t` + row.map((v) => String(v)).join('\t'));
}
