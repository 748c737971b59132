// Nothing to call: StartArguments.c only stands in for the Swift runtime's argv finder.
#ifndef DAYSOME_START_ARGUMENTS_H
#define DAYSOME_START_ARGUMENTS_H
#endif
