import { fuzzExample } from './fuzz-suite';

fuzzExample('koa');
