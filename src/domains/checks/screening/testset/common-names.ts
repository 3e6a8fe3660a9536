/** Common given names and surnames by culture, for the unlisted half of the screening test set. */
export interface Culture {
  name: string;
  first: string[];
  middle?: string[];
  last: string[];
  /** nationalities people with these names commonly hold (ISO alpha-2) */
  countries: string[];
}

export const CULTURES: Culture[] = [
  {
    name: "arabic",
    first: ["Mohammed", "Ahmed", "Omar", "Khalid", "Youssef", "Fatima", "Aisha", "Mariam", "Layla", "Tariq", "Karim", "Samir", "Nour", "Rania", "Hana", "Bilal", "Ziad", "Rami", "Salma", "Amira", "Walid", "Hisham", "Nadia", "Yasmin", "Fadi", "Imad", "Lina", "Huda"],
    middle: ["Ali", "Hassan", "Saleh", "Nabil"],
    last: ["Haddad", "Khoury", "Mansour", "Nasser", "Saleh", "Farouk", "Aziz", "Karam", "Daher", "Bitar", "Sabbagh", "Qasem", "Shaheen", "Hijazi", "Othman", "Zaki", "Barakat", "Najjar", "Fakhoury", "Rizk", "Tannous", "Halabi", "Jaber", "Masri", "Awad", "Darwish", "Shami", "Kassab"],
    countries: ["AE", "EG", "JO", "SA", "MA", "LB", "TN"],
  },
  {
    name: "chinese",
    first: ["Wei", "Fang", "Na", "Min", "Jing", "Lei", "Yang", "Yan", "Hui", "Ling", "Hao", "Qiang", "Xin", "Yu", "Jun", "Tao", "Ming", "Xiu", "Bo", "Chen", "Li", "Ying", "Peng", "Dan", "Lan", "Gang"],
    last: ["Wang", "Li", "Zhang", "Liu", "Chen", "Yang", "Huang", "Zhao", "Wu", "Zhou", "Xu", "Sun", "Ma", "Zhu", "Hu", "Guo", "He", "Gao", "Lin", "Luo", "Zheng", "Liang", "Xie", "Song", "Tang", "Han"],
    countries: ["CN", "SG", "MY", "TW", "HK"],
  },
  {
    name: "indian",
    first: ["Aarav", "Vivaan", "Aditya", "Arjun", "Rohan", "Priya", "Ananya", "Kavya", "Sneha", "Pooja", "Rahul", "Vikram", "Suresh", "Ramesh", "Deepak", "Anjali", "Neha", "Sanjay", "Amit", "Lakshmi", "Meera", "Karthik", "Rajesh", "Sunita", "Harpreet", "Manoj"],
    middle: ["Kumar", "Devi", "Lal", "Prasad"],
    last: ["Sharma", "Verma", "Gupta", "Patel", "Iyer", "Reddy", "Nair", "Menon", "Rao", "Joshi", "Kulkarni", "Desai", "Mehta", "Chopra", "Malhotra", "Bhatia", "Agarwal", "Banerjee", "Chatterjee", "Mukherjee", "Pillai", "Sinha", "Saxena", "Trivedi", "Kapoor", "Sandhu"],
    countries: ["IN"],
  },
  {
    name: "hispanic",
    first: ["Maria", "Jose", "Juan", "Carmen", "Ana", "Luis", "Carlos", "Lucia", "Sofia", "Diego", "Javier", "Elena", "Pablo", "Isabel", "Alejandro", "Valentina", "Mateo", "Camila", "Andres", "Gabriela", "Fernando", "Rosa", "Ricardo", "Paula", "Sergio", "Beatriz"],
    middle: ["Luis", "Elena", "Antonio", "Isabel"],
    last: ["Garcia", "Martinez", "Rodriguez", "Lopez", "Hernandez", "Gonzalez", "Perez", "Sanchez", "Ramirez", "Torres", "Flores", "Rivera", "Gomez", "Diaz", "Cruz", "Morales", "Reyes", "Gutierrez", "Ortiz", "Chavez", "Ruiz", "Alvarez", "Mendoza", "Castillo", "Jimenez", "Vargas"],
    countries: ["MX", "ES", "CO", "AR", "PE", "CL", "US"],
  },
  {
    name: "anglo",
    first: ["James", "John", "Robert", "Michael", "William", "David", "Richard", "Joseph", "Thomas", "Charles", "Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah", "Karen", "Emily", "Oliver", "Harry", "Charlotte", "Amelia", "George"],
    middle: ["Edward", "Anne", "Lee", "Marie"],
    last: ["Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Anderson", "Taylor", "Thomas", "Moore", "Jackson", "Martin", "Thompson", "White", "Harris", "Clark", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott"],
    countries: ["US", "GB", "CA", "AU", "NZ", "IE"],
  },
  {
    name: "slavic",
    first: ["Anna", "Olga", "Tatiana", "Elena", "Natalia", "Irina", "Svetlana", "Ekaterina", "Maria", "Yulia", "Ivan", "Dmitri", "Sergei", "Andrei", "Alexei", "Nikolai", "Pavel", "Mikhail", "Artem", "Maxim", "Piotr", "Tomasz", "Katarzyna", "Agnieszka", "Marek", "Jan"],
    last: ["Kowalski", "Nowak", "Wisniewski", "Wojcik", "Kaminski", "Lewandowski", "Zielinski", "Szymanski", "Kozlova", "Novikova", "Morozova", "Volkova", "Sokolova", "Lebedeva", "Kuznetsova", "Popova", "Vasilieva", "Fedorova", "Mikhailova", "Orlova", "Dvorak", "Novotny", "Horvat", "Kovac", "Petrenko", "Bondarenko"],
    countries: ["PL", "RU", "UA", "CZ", "SK", "HR"],
  },
  {
    name: "african",
    first: ["Chinedu", "Ngozi", "Oluwaseun", "Adebayo", "Chiamaka", "Emeka", "Amara", "Kwame", "Kofi", "Ama", "Akosua", "Thabo", "Sipho", "Nomvula", "Lerato", "Wanjiru", "Kamau", "Otieno", "Achieng", "Juma", "Zawadi", "Abebe", "Tigist", "Yaw", "Folasade", "Babajide"],
    last: ["Okafor", "Adeyemi", "Okonkwo", "Eze", "Nwosu", "Balogun", "Mensah", "Owusu", "Boateng", "Asante", "Nkosi", "Dlamini", "Ndlovu", "Khumalo", "Mokoena", "Mwangi", "Kariuki", "Njoroge", "Ochieng", "Odhiambo", "Tesfaye", "Bekele", "Haile", "Oyelaran", "Adeleke", "Chukwu"],
    countries: ["NG", "GH", "ZA", "KE", "ET"],
  },
  {
    name: "southeast-asian",
    first: ["Nguyen", "Minh", "Thi", "Anh", "Linh", "Tuan", "Hoa", "Siti", "Nurul", "Putri", "Budi", "Agus", "Dewi", "Rizky", "Juan", "Maricel", "Jocelyn", "Rodel", "Somchai", "Siriporn", "Kanya", "Arun", "Nattapong", "Aung", "Thandar", "Mei"],
    last: ["Tran", "Le", "Pham", "Hoang", "Vu", "Dang", "Bui", "Do", "Santoso", "Wijaya", "Halim", "Saputra", "Kusuma", "Hidayat", "Dela Cruz", "Bautista", "Villanueva", "Mendoza", "Aquino", "Sukhumvit", "Srisai", "Chaiyaporn", "Wongsakul", "Rattanakorn", "Thein", "Lim"],
    countries: ["VN", "ID", "PH", "TH", "MM", "MY", "SG"],
  },
  {
    name: "persian-turkish",
    first: ["Mehmet", "Mustafa", "Emre", "Burak", "Elif", "Zeynep", "Ayse", "Fatma", "Can", "Deniz", "Arash", "Dariush", "Shirin", "Parisa", "Navid", "Babak", "Ladan", "Kaveh", "Neda", "Farhad", "Selin", "Kerem", "Cem", "Leyla", "Omid", "Roya"],
    last: ["Yilmaz", "Kaya", "Demir", "Sahin", "Celik", "Yildiz", "Aydin", "Ozturk", "Arslan", "Dogan", "Kilic", "Aslan", "Tehrani", "Shirazi", "Farahani", "Karimi", "Jafari", "Moradi", "Ahmadi", "Rostami", "Sadeghi", "Mirzaei", "Bahrami", "Yazdani", "Esfahani", "Kaplan"],
    countries: ["TR", "IR", "DE", "AZ"],
  },
  {
    name: "european",
    first: ["Lukas", "Leon", "Hannah", "Lena", "Felix", "Sophie", "Jan", "Pierre", "Camille", "Louise", "Hugo", "Chloe", "Giulia", "Francesco", "Matteo", "Chiara", "Sven", "Ingrid", "Lars", "Astrid", "Joao", "Beatriz", "Pieter", "Sanne", "Niamh", "Aoife"],
    middle: ["Maria", "Johann", "Marie", "Luc"],
    last: ["Muller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Dubois", "Bernard", "Moreau", "Laurent", "Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Andersson", "Johansson", "Nilsson", "Hansen", "Jansen", "De Vries", "Van Dijk", "Silva", "Santos", "Murphy", "Kelly"],
    countries: ["DE", "FR", "IT", "SE", "NL", "PT", "IE", "AT", "BE"],
  },
];
