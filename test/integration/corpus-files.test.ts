// The bad-input corpus, second half: paths, links, staging and history cases (test/corpus/driver.ts
// runs them; test/integration/corpus.test.ts has the first half).
import { corpusTests } from '../corpus/driver.js';
import { pathCases } from '../corpus/paths.js';
import { linkCases } from '../corpus/links.js';
import { stagingCases } from '../corpus/staging.js';
import { historyCases } from '../corpus/history.js';

corpusTests({ paths: pathCases, links: linkCases, staging: stagingCases, history: historyCases });
