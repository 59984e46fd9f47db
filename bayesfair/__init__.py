from bayesfair.data import AssessmentData
