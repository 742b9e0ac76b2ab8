#!/usr/bin/env node
// The compiled CLI lives in dist/; `npm install` builds it (root `prepare`).
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv.slice(2));
