import { fuzzExample } from './fuzz-suite';

fuzzExample('fastify');
