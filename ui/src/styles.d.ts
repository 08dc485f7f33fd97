// Stylesheets are imported for their effect (Vite bundles them); TypeScript 7 checks that a
// side-effect import resolves, so it is told what a .css module is.
declare module '*.css';
