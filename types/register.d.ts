// customlabels/register is loaded for its effect (node --import
// customlabels/register, --require, or NODE_OPTIONS): it exports nothing.
export {};
