import { fuzzExample } from './fuzz-suite';

fuzzExample('express');
