"""The words a person names someone close by (`my sister Ana`): shared by the offline patterns and the
author profile, which `context` builds without loading the patterns."""

RELATIONS = (
    "sister", "brother", "mother", "mom", "mum", "father", "dad", "partner", "wife", "husband",
    "boyfriend", "girlfriend", "fiancé", "fiancée", "fiance", "fiancee", "son", "daughter", "cousin",
    "aunt", "uncle", "grandmother", "grandfather", "grandma", "grandpa", "niece", "nephew",
    "friend", "best friend", "manager", "boss", "colleague", "coworker", "co-worker", "cofounder",
    "co-founder", "mentor", "therapist", "coach", "roommate", "flatmate", "neighbour", "neighbor",
    "teacher", "doctor", "landlord", "client",
)
