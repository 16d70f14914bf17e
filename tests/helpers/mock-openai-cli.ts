// Runs the mock OpenAI-compatible server on its own (manual checks, benches):
//   npx tsx tests/helpers/mock-openai-cli.ts [port] [delayMs] [words]
import { startMockOpenAI } from './mock-openai';

const [port = '5407', delay = '30', words = '60'] = process.argv.slice(2);
const mock = await startMockOpenAI({ port: Number(port), delayMs: Number(delay), words: Number(words) });
process.stdout.write(`mock OpenAI-compatible server at ${mock.url}\n`);
process.on('SIGTERM', () => { void mock.close().then(() => process.exit(0)); });
